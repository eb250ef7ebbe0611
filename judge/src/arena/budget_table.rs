//! `[budget]` in arena.toml: the budgets of each run (the runtime's
//! defaults where the table is silent) and the cost cap `max_cost_usd`.

use super::ARENA_TOML;
use crate::problem::Problem;
use serde::Deserialize;
use std::time::Duration;
use tribunal_runtime::{Budget, OnBudget, OnNothingNew, OnRepeat};

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BudgetToml {
    max_tokens: Option<u64>,
    max_tool_calls: Option<u32>,
    #[serde(default, deserialize_with = "deadline_secs")]
    deadline_secs: Option<Duration>,
    max_turns: Option<u32>,
    on_budget: Option<OnBudget>,
    on_repeat: Option<OnRepeat>,
    on_nothing_new: Option<OnNothingNew>,
    max_idle_turns: Option<u32>,
    on_idle: Option<OnBudget>,
    max_cost_usd: Option<f64>,
}

/// `deadline_secs`: a positive number of seconds that fits a `Duration`;
/// anything else is a lint problem at its line, never a silent default.
fn deadline_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let secs = f64::deserialize(d)?;
    match Duration::try_from_secs_f64(secs) {
        Ok(deadline) if !deadline.is_zero() => Ok(Some(deadline)),
        _ => Err(serde::de::Error::custom(format!(
            "deadline_secs must be a positive number of seconds, not {secs}"
        ))),
    }
}

/// Reads `[budget]`: each run's budget, and `max_cost_usd` (priced per
/// backend by the runner), which must be a finite amount of at least 0.
pub(super) fn read(
    table: Option<&BudgetToml>,
    problems: &mut Vec<Problem>,
) -> (Budget, Option<f64>) {
    let table = table.cloned().unwrap_or_default();
    let max_cost_usd = table.max_cost_usd;
    if let Some(m) = max_cost_usd
        && !(m.is_finite() && m >= 0.0)
    {
        problems.push(Problem::file(
            ARENA_TOML,
            format!("budget.max_cost_usd must be a finite amount of at least 0, got {m}"),
        ));
    }
    (budget(table), max_cost_usd)
}

fn budget(b: BudgetToml) -> Budget {
    let d = Budget::default();
    Budget {
        max_tokens: b.max_tokens.or(d.max_tokens),
        // Priced per backend by the runner ([`Arena::max_cost_usd`]).
        max_cost: None,
        max_tool_calls: b.max_tool_calls.or(d.max_tool_calls),
        deadline: b.deadline_secs.or(d.deadline),
        max_turns: b.max_turns.unwrap_or(d.max_turns),
        on_budget: b.on_budget.unwrap_or(d.on_budget),
        on_repeat: b.on_repeat.unwrap_or(d.on_repeat),
        on_nothing_new: b.on_nothing_new.unwrap_or(d.on_nothing_new),
        max_idle_turns: b.max_idle_turns.unwrap_or(d.max_idle_turns),
        on_idle: b.on_idle.unwrap_or(d.on_idle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Budget, String> {
        let table: BudgetToml = toml::from_str(text).map_err(|e| e.to_string())?;
        Ok(budget(table))
    }

    #[test]
    fn the_loop_policies_are_read_and_default_as_the_runtime_does() {
        let silent = read_text("").ok();
        assert_eq!(silent, Some(Budget::default()));
        let set = read_text("on_repeat = \"notice\"\non_nothing_new = \"finalize\"\n").ok();
        assert_eq!(
            set.map(|b| (b.on_repeat, b.on_nothing_new)),
            Some((OnRepeat::Notice, OnNothingNew::Finalize))
        );
        let wrong = read_text("on_nothing_new = \"stop\"\n")
            .err()
            .unwrap_or_default();
        assert!(
            wrong.contains("continue") && wrong.contains("finalize"),
            "{wrong}"
        );
    }
}
