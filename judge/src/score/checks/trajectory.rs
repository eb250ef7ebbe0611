//! The checks that read the run's tool calls, not its answer: `tool_used`,
//! `tool_not_used`, `no_tool`, `min_tool_calls`, `max_tool_calls`,
//! `call_counts`, `tool_sequence` and `tool_args_match`.
//!
//! A "call" is every call the model made that the loop recorded, failed
//! and repeated ones included; only `tool_used` counts successful calls
//! alone (a call refused for bad arguments did not use the tool).

use super::{SequenceMode, lookup, short, values_equal};
use indexmap::IndexMap;
use serde_json::Value;
use tribunal_runtime::internal::approval::{ApprovalOutcome, ApprovalRecord};
use tribunal_runtime::internal::report::ToolCallRecord;

/// `tool_used`: at least `min` successful calls of `name`.
pub(super) fn tool_used(calls: &[ToolCallRecord], name: &str, min: u32) -> (bool, String) {
    let named: Vec<_> = calls.iter().filter(|t| t.name == name).collect();
    let ok = named.iter().filter(|t| t.ok).count();
    let failed = named.len() - ok;
    let detail = if failed == 0 {
        format!("{name} called {ok} time(s), at least {min} required")
    } else {
        format!(
            "{name} called {ok} time(s) successfully ({failed} failed), at least {min} required"
        )
    };
    (ok >= min as usize, detail)
}

/// `tool_not_used`: no call of `name` at all.
pub(super) fn tool_not_used(calls: &[ToolCallRecord], name: &str) -> (bool, String) {
    let n = calls.iter().filter(|t| t.name == name).count();
    (n == 0, format!("{name} called {n} time(s), none allowed"))
}

/// `no_tool`: no call of any tool.
pub(super) fn no_tool(calls: &[ToolCallRecord]) -> (bool, String) {
    match calls {
        [] => (true, "no tool called".to_string()),
        _ => (
            false,
            format!("{} tool call(s): {}", calls.len(), names(calls)),
        ),
    }
}

/// `min_tool_calls` / `max_tool_calls`: the number of calls against a bound.
pub(super) fn call_total(calls: &[ToolCallRecord], bound: u32, at_least: bool) -> (bool, String) {
    let n = calls.len();
    let bound_usize = bound as usize;
    let (ok, word) = if at_least {
        (n >= bound_usize, "at least")
    } else {
        (n <= bound_usize, "at most")
    };
    (ok, format!("{n} tool call(s), {word} {bound} required"))
}

/// `call_counts`: each named tool called exactly as often as listed.
pub(super) fn call_counts(
    calls: &[ToolCallRecord],
    counts: &IndexMap<String, u32>,
) -> (bool, String) {
    let wrong: Vec<String> = counts
        .iter()
        .filter_map(|(name, &want)| {
            let got = calls.iter().filter(|t| &t.name == name).count();
            (got != want as usize).then(|| format!("{name} {got} (expected {want})"))
        })
        .collect();
    if wrong.is_empty() {
        (
            true,
            format!("{} tool(s) called as often as listed", counts.len()),
        )
    } else {
        (false, format!("calls: {}", wrong.join(", ")))
    }
}

/// `tool_sequence`: the called tools' names against `expected` under `mode`.
pub(super) fn tool_sequence(
    calls: &[ToolCallRecord],
    expected: &[String],
    mode: SequenceMode,
) -> (bool, String) {
    let actual: Vec<&str> = calls.iter().map(|t| t.name.as_str()).collect();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    let (got, want) = (count(&actual), count(&expected));
    let covers = |big: &IndexMap<&str, usize>, small: &IndexMap<&str, usize>| {
        small
            .iter()
            .all(|(name, n)| big.get(name).copied().unwrap_or(0) >= *n)
    };
    let ok = match mode {
        SequenceMode::Strict => actual == expected,
        SequenceMode::Unordered => covers(&got, &want) && covers(&want, &got),
        SequenceMode::Subset => covers(&want, &got),
        SequenceMode::Superset => covers(&got, &want),
    };
    let mode_name = match mode {
        SequenceMode::Strict => "strict",
        SequenceMode::Unordered => "unordered",
        SequenceMode::Subset => "subset",
        SequenceMode::Superset => "superset",
    };
    (
        ok,
        format!(
            "called [{}], expected [{}] ({mode_name})",
            actual.join(", "),
            expected.join(", ")
        ),
    )
}

/// How many non-matching argument values a `tool_args_match` detail shows.
const SEEN_SHOWN: usize = 5;

/// `tool_args_match`: some call of `name` whose arguments hold `value` at
/// `path`. Arguments that are not JSON match nothing.
pub(super) fn tool_args_match(
    calls: &[ToolCallRecord],
    name: &str,
    path: &str,
    value: &Value,
    tol: Option<f64>,
) -> (bool, String) {
    let mut seen = Vec::new();
    let mut named = 0;
    for call in calls.iter().filter(|t| t.name == name) {
        named += 1;
        let Ok(args) = serde_json::from_str::<Value>(&call.arguments) else {
            seen.push("(arguments not JSON)".to_string());
            continue;
        };
        match lookup(&args, path) {
            Some(actual) if values_equal(actual, value, tol) => {
                return (
                    true,
                    format!("{name} called with {path} = {}", short(actual)),
                );
            }
            Some(actual) => seen.push(short(actual)),
            None => seen.push("(absent)".to_string()),
        }
    }
    if seen.len() > SEEN_SHOWN {
        let more = seen.len() - SEEN_SHOWN;
        seen.truncate(SEEN_SHOWN);
        seen.push(format!("{more} more"));
    }
    let tol = tol.map(|t| format!(" (tol {t})")).unwrap_or_default();
    let detail = if named == 0 {
        format!("{name} never called; expected {path} = {value}{tol}")
    } else {
        format!(
            "{name} called {named} time(s), none with {path} = {value}{tol} (got {})",
            seen.join(", ")
        )
    };
    (false, detail)
}

/// How often each name occurs in `list`.
fn count<'a>(list: &[&'a str]) -> IndexMap<&'a str, usize> {
    let mut m: IndexMap<&str, usize> = IndexMap::new();
    for name in list {
        *m.entry(name).or_default() += 1;
    }
    m
}

fn names(calls: &[ToolCallRecord]) -> String {
    let names: Vec<&str> = calls.iter().map(|t| t.name.as_str()).collect();
    names.join(", ")
}

/// `approvals`: the calls approval treated as `outcome` (of `tool`, when
/// given) number within `min` ..= `max`.
pub(super) fn approvals(
    records: &[ApprovalRecord],
    outcome: ApprovalOutcome,
    tool: Option<&str>,
    min: Option<u32>,
    max: Option<u32>,
) -> (bool, String) {
    let n = records
        .iter()
        .filter(|r| r.outcome == outcome && tool.is_none_or(|t| r.tool == t))
        .count();
    let (ok, bounds) = super::count_within(n, min, max);
    let of = tool.map_or(String::new(), |t| format!(" of {t}"));
    let outcome = outcome.as_str();
    (ok, format!("{n} call(s){of} {outcome}, {bounds} required"))
}
