//! [`TokenUse`]: what a set of runs spent in tokens — per item run, per
//! PASS, and the share of the input read from the provider's prompt cache —
//! and [`TokenChange`]: one of those figures from a baseline to a new run.
//!
//! The definitions every report states:
//!
//! - **tokens** of a run = its input + output tokens: the agent's model
//!   calls and, when `rubric` checks were judged, the judge's, and when a
//!   model played a conversation's user, the simulator's — the same parts
//!   the cost line prices ([`crate::pricing::Pricing::cost_of`]).
//!   Cached input counts: it is input the model read.
//! - **per item run** = the tokens of every run / the number of runs, ERROR
//!   runs included (their tokens were paid too). With `--repeat K` each
//!   repeat is a run.
//! - **per PASS** = the tokens of every run / the number of PASS runs: what
//!   one right answer costs, the runs that failed paid for. None without a
//!   PASS run (never 0, never infinite).
//! - **cached share** = cache-read input tokens / input tokens. Cache writes
//!   are input too but not reads. Not reported when no run reported a cache
//!   read or write: a provider that reports nothing and one that reports 0
//!   look the same in a row, so "0%" would claim what nobody measured.

use crate::rows::results::ResultRow;
use crate::score::Outcome;
use serde::{Deserialize, Serialize};

/// What a mock run's report says instead of its cost and token lines
/// ([`TokenUse::not_measured`]).
pub const NOT_MEASURED: &str =
    "tokens and cost: not measured (mock run: the scripted model spends none)";

/// Why a figure of [`TokenUse`] has no value (its `…_missing` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    /// There are no runs.
    NoRuns,
    /// No run passed: there is no right answer to divide by.
    NoPass,
    /// No run reported a cache read or write.
    CacheNotReported,
    /// Cache tokens were reported, but no input tokens.
    NoInputTokens,
}

impl Missing {
    /// The reason in words, for the people-facing reports.
    pub fn as_text(self) -> &'static str {
        match self {
            Missing::NoRuns => "no runs",
            Missing::NoPass => "no PASS run",
            Missing::CacheNotReported => "no run reported cache reads or writes",
            Missing::NoInputTokens => "no input tokens",
        }
    }
}

/// The tokens a set of runs spent. Field names are a contract scripts rely
/// on (the JSON report's `tokens`, each side of a comparison).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenUse {
    /// Runs (items × repeats, ERROR included): the denominator of
    /// `per_item`.
    pub runs: usize,
    /// PASS runs: the denominator of `per_pass`.
    pub pass_runs: usize,
    /// Input + output tokens over every run (agent and rubric judge).
    pub total: u64,
    /// Input tokens over every run, cached ones included.
    pub input: u64,
    /// Output tokens over every run, reasoning included.
    pub output: u64,
    /// Of `input`: read from the prompt cache.
    pub cache_read: u64,
    /// Of `input`: written to the prompt cache (not reads).
    pub cache_write: u64,
    /// Of `total`: the rubric judge's tokens. Absent when no run was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<u64>,
    /// Of `total`: the simulated users' tokens (a model playing the user of
    /// a conversation item). Absent when no model played one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<u64>,
    /// `total / runs`; null without runs (`per_item_missing` says so).
    pub per_item: Option<f64>,
    /// Why `per_item` is null; absent when it has a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_item_missing: Option<Missing>,
    /// `total / pass_runs`; null without a PASS run.
    pub per_pass: Option<f64>,
    /// Why `per_pass` is null; absent when it has a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_pass_missing: Option<Missing>,
    /// `cache_read / input` (0..=1); null when no run reported cache
    /// tokens.
    pub cached_share: Option<f64>,
    /// Why `cached_share` is null; absent when it has a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_share_missing: Option<Missing>,
}

impl TokenUse {
    /// The tokens of `rows`, one per run.
    pub fn of(rows: &[ResultRow]) -> TokenUse {
        let mut t = TokenUse {
            runs: rows.len(),
            ..TokenUse::default()
        };
        for row in rows {
            t.pass_runs += usize::from(row.outcome == Outcome::Pass);
            let judge = row.judge.as_ref().map(|j| &j.usage);
            let user = row
                .conversation
                .as_ref()
                .filter(|t| t.simulator.is_some())
                .map(|t| &t.user_usage);
            for usage in std::iter::once(&row.usage).chain(judge).chain(user) {
                t.input = t.input.saturating_add(usage.input_tokens);
                t.output = t.output.saturating_add(usage.output_tokens);
                t.cache_read = t.cache_read.saturating_add(usage.cache_read_tokens);
                t.cache_write = t.cache_write.saturating_add(usage.cache_write_tokens);
            }
            if let Some(usage) = judge {
                let judge_total = t.judge.unwrap_or(0).saturating_add(usage.total());
                t.judge = Some(judge_total);
            }
            if let Some(usage) = user {
                t.user = Some(t.user.unwrap_or(0).saturating_add(usage.total()));
            }
        }
        t.total = t.input.saturating_add(t.output);
        (t.per_item, t.per_item_missing) = ratio(t.total, t.runs as u64, Missing::NoRuns);
        (t.per_pass, t.per_pass_missing) = if t.runs == 0 {
            (None, Some(Missing::NoRuns))
        } else {
            ratio(t.total, t.pass_runs as u64, Missing::NoPass)
        };
        (t.cached_share, t.cached_share_missing) = if t.runs == 0 {
            (None, Some(Missing::NoRuns))
        } else if t.cache_read == 0 && t.cache_write == 0 {
            (None, Some(Missing::CacheNotReported))
        } else {
            ratio(t.cache_read, t.input, Missing::NoInputTokens)
        };
        t
    }

    /// The one line a report gives instead of its cost and token lines
    /// when nothing was measured: a mock run whose script gave no `usage`
    /// (every figure would be a zero, every cost $0). `None` otherwise.
    pub fn not_measured(&self, mock: bool) -> Option<&'static str> {
        (mock && self.runs > 0 && self.total == 0).then_some(NOT_MEASURED)
    }

    /// One line for people, naming every denominator: `tokens 51,510 over
    /// 15 run(s) (input + output): 3,434 per item run (all 15 runs, ERROR
    /// included) · 3,678 per PASS (all runs'
    /// tokens over 14 PASS run(s)) · cached share 12.0%
    /// (4,800 cache-read of 40,000 input tokens; cache writes are not
    /// reads)`. On a mock run it says the figures are the script's.
    pub fn line(&self, mock: bool) -> String {
        if self.runs == 0 {
            return "tokens: no runs".to_string();
        }
        let included = |whose: &str, n: Option<u64>| {
            n.map(|n| format!(", {whose} {} included as in the cost", grouped(n)))
                .unwrap_or_default()
        };
        let judge = included("the rubric judge's", self.judge);
        let user = included("the simulated user's", self.user);
        let per_item = self.per_item.map(figure).unwrap_or_default();
        let per_pass = match self.per_pass {
            Some(x) => format!(
                "{} per PASS (all runs' tokens over {} PASS run(s))",
                figure(x),
                self.pass_runs
            ),
            None => format!("per PASS: none ({})", self.why(self.per_pass_missing)),
        };
        let cached = match self.cached_share {
            Some(share) => format!(
                "cached share {:.1}% ({} cache-read of {} input tokens; cache writes are not reads)",
                share * 100.0,
                grouped(self.cache_read),
                grouped(self.input)
            ),
            None => format!(
                "cached share not reported ({})",
                self.why(self.cached_share_missing)
            ),
        };
        let mock = if mock {
            "; mock: each turn reports the `usage` its script gives, 0 without one"
        } else {
            ""
        };
        format!(
            "tokens {} over {} run(s) (input + output{judge}{user}): {per_item} per item run (all {} runs, ERROR included) · {per_pass} · {cached}{mock}",
            grouped(self.total),
            self.runs,
            self.runs
        )
    }

    /// Why a figure has no value (no runs when not said).
    pub(crate) fn why(&self, missing: Option<Missing>) -> &'static str {
        missing.unwrap_or(Missing::NoRuns).as_text()
    }
}

/// A run's tokens as [`TokenUse`] counts them: the agent's and its rubric
/// judge's input + output.
pub fn run_tokens(row: &ResultRow) -> u64 {
    let judge = row.judge.as_ref().map_or(0, |j| j.usage.total());
    row.usage.total().saturating_add(judge)
}

/// `n / d` and, when `d` is 0, no value and `missing`.
fn ratio(n: u64, d: u64, missing: Missing) -> (Option<f64>, Option<Missing>) {
    if d == 0 {
        (None, Some(missing))
    } else {
        (Some(n as f64 / d as f64), None)
    }
}

/// One token figure from a baseline to a new run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenChange {
    /// The baseline's figure (null when it has none).
    pub base: Option<f64>,
    /// The new run's figure (null when it has none).
    pub new: Option<f64>,
    /// `new - base`; null when either is null.
    pub delta: Option<f64>,
    /// `(new - base) / base`; null when either is null or `base` is 0.
    pub relative: Option<f64>,
}

impl TokenChange {
    /// The change from `base` to `new`.
    pub fn between(base: Option<f64>, new: Option<f64>) -> TokenChange {
        let delta = base.zip(new).map(|(b, n)| n - b);
        TokenChange {
            base,
            new,
            delta,
            relative: delta.zip(base.filter(|b| *b != 0.0)).map(|(d, b)| d / b),
        }
    }

    /// `3,434 → 1,302 (-2,132, -62.1%)`; a side without a figure reads
    /// `none`, and then there is no change to give.
    pub fn text(&self) -> String {
        let side = |x: Option<f64>| x.map_or_else(|| "none".to_string(), figure);
        let change = self.change_text();
        let change = if change.is_empty() {
            change
        } else {
            format!(" ({change})")
        };
        format!("{} → {}{change}", side(self.base), side(self.new))
    }

    /// `-2,132, -62.1%`: the absolute change and, from a baseline other
    /// than 0, the relative one; empty when a side has no figure.
    pub fn change_text(&self) -> String {
        let Some(d) = self.delta else {
            return String::new();
        };
        let relative = self
            .relative
            .map(|r| format!(", {}%", signed(format!("{:.1}", r.abs() * 100.0), r)))
            .unwrap_or_default();
        format!("{}{relative}", signed(figure(d.abs()), d))
    }
}

/// `text` with `+` or `-` before it by the sign of `x`, as the reports'
/// other changes (`{:+.1}`) read; a change that rounds to zero is `+0`.
fn signed(text: String, x: f64) -> String {
    let zero = text.trim_start_matches(['0', '.', ',']).is_empty();
    if x < 0.0 && !zero {
        format!("-{text}")
    } else {
        format!("+{text}")
    }
}

/// A change in a count of tokens, signed and grouped: `-10,800`, `+0`.
pub fn signed_count(n: i64) -> String {
    signed(grouped(n.unsigned_abs()), n as f64)
}

/// A token figure rounded to a whole token, grouped by thousands: `3,434`.
pub fn figure(x: f64) -> String {
    if x.is_finite() && x >= 0.0 {
        grouped(x.round() as u64)
    } else if x.is_finite() {
        format!("-{}", grouped((-x).round() as u64))
    } else {
        "none".to_string()
    }
}

/// `n` grouped by thousands: `51,510`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::results::ROW_VERSION;
    use crate::score::JudgeRecord;
    use tribunal_runtime::internal::conversation::Usage;

    fn row(id: &str, outcome: Outcome, usage: Usage) -> ResultRow {
        ResultRow {
            version: ROW_VERSION,
            arena: "a".into(),
            id: id.into(),
            index: 0,
            repeat: 0,
            config_hash: "h".into(),
            outcome,
            error_code: None,
            backend_failure: None,
            error_detail: None,
            checks_digest: None,
            checks: Vec::new(),
            answer: None,
            usage,
            tool_calls: Vec::new(),
            wall_ms: 1.0,
            turns: 1,
            repair_used: false,
            finalized_after: None,
            backend: "openai-chat".into(),
            model: "m".into(),
            sampling: None,
            finished_at_ms: 0,
            replayed: false,
            custom_endpoint: false,
            batch: false,
            unsandboxed: false,
            cache: None,
            judge: None,
            shard: None,
            approvals: Vec::new(),
            conversation: None,
        }
    }

    fn cached(input: u64, output: u64, read: u64, write: u64) -> Usage {
        Usage {
            cache_read_tokens: read,
            cache_write_tokens: write,
            ..Usage::new(input, output)
        }
    }

    #[test]
    fn per_item_counts_every_run_and_per_pass_only_the_passes() {
        let rows = [
            row("a", Outcome::Pass, cached(1000, 200, 600, 0)),
            row("b", Outcome::Fail, cached(2000, 300, 0, 100)),
            row("c", Outcome::Error, Usage::new(5000, 500)),
            row("d", Outcome::Pass, Usage::new(800, 100)),
        ];
        let t = TokenUse::of(&rows);
        assert_eq!((t.runs, t.pass_runs), (4, 2));
        assert_eq!((t.input, t.output, t.total), (8800, 1100, 9900));
        assert_eq!((t.cache_read, t.cache_write), (600, 100));
        // The ERROR run's 5,500 tokens count in both figures.
        assert_eq!(t.per_item, Some(9900.0 / 4.0));
        assert_eq!(t.per_pass, Some(9900.0 / 2.0));
        // Reads only: the 100 written are not reads.
        assert_eq!(t.cached_share, Some(600.0 / 8800.0));
        assert_eq!(
            (
                t.per_item_missing,
                t.per_pass_missing,
                t.cached_share_missing
            ),
            (None, None, None)
        );
        assert_eq!(t.judge, None);
        assert_eq!(
            t.line(false),
            "tokens 9,900 over 4 run(s) (input + output): 2,475 per item run (all 4 runs, ERROR included) · 4,950 per PASS (all runs' tokens over 2 PASS run(s)) · cached share 6.8% (600 cache-read of 8,800 input tokens; cache writes are not reads)"
        );
    }

    #[test]
    fn no_pass_gives_no_per_pass_figure_and_says_why() {
        let rows = [
            row("a", Outcome::Fail, Usage::new(100, 10)),
            row("b", Outcome::Error, Usage::new(100, 10)),
        ];
        let t = TokenUse::of(&rows);
        assert_eq!(t.per_pass, None);
        assert_eq!(t.per_pass_missing, Some(Missing::NoPass));
        assert_eq!(t.per_item, Some(110.0));
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["per_pass"], serde_json::Value::Null);
        assert_eq!(json["per_pass_missing"], "no_pass");
        assert!(json.get("per_item_missing").is_none());
        assert!(t.line(false).contains("per PASS: none (no PASS run)"));
        let props = t.properties();
        assert!(props.contains(&("tokens_per_pass_missing".into(), "no PASS run".into())));
        assert!(!props.iter().any(|(k, _)| k == "tokens_per_pass"));
    }

    #[test]
    fn no_cache_fields_is_not_reported_rather_than_zero() {
        let t = TokenUse::of(&[row("a", Outcome::Pass, Usage::new(100, 10))]);
        assert_eq!(t.cached_share, None);
        assert_eq!(t.cached_share_missing, Some(Missing::CacheNotReported));
        let line = t.line(false);
        assert!(line.contains("cached share not reported (no run reported cache reads or writes)"));
        assert!(!line.contains("0.0%"), "{line}");
        // Writes alone are reported caching: nothing was read, so 0%.
        let w = TokenUse::of(&[row("a", Outcome::Pass, cached(100, 10, 0, 40))]);
        assert_eq!(w.cached_share, Some(0.0));
    }

    #[test]
    fn zero_runs_has_no_figures() {
        let t = TokenUse::of(&[]);
        assert_eq!((t.runs, t.total), (0, 0));
        assert_eq!((t.per_item, t.per_pass, t.cached_share), (None, None, None));
        assert_eq!(
            (
                t.per_item_missing,
                t.per_pass_missing,
                t.cached_share_missing
            ),
            (
                Some(Missing::NoRuns),
                Some(Missing::NoRuns),
                Some(Missing::NoRuns)
            )
        );
        assert_eq!(t.line(false), "tokens: no runs");
        assert!(!serde_json::to_string(&t).unwrap().contains("inf"));
    }

    #[test]
    fn the_judge_is_counted_as_the_cost_line_counts_it() {
        let mut judged = row("a", Outcome::Pass, Usage::new(1000, 100));
        judged.judge = Some(JudgeRecord {
            backend: "openai-chat".into(),
            model: "j".into(),
            usage: cached(300, 20, 100, 0),
            verdicts: Vec::new(),
            wall_ms: 0.0,
            failed: false,
            custom_endpoint: false,
        });
        let t = TokenUse::of(&[judged, row("b", Outcome::Fail, Usage::new(500, 50))]);
        assert_eq!(t.total, 1100 + 320 + 550);
        assert_eq!(t.judge, Some(320));
        assert_eq!(t.cache_read, 100);
        assert!(
            t.line(false)
                .contains("(input + output, the rubric judge's 320 included as in the cost)")
        );
        assert!(
            t.properties()
                .contains(&("tokens_judge".into(), "320".into()))
        );
    }

    #[test]
    fn a_mock_line_says_the_figures_are_the_scripts() {
        let t = TokenUse::of(&[row("a", Outcome::Pass, Usage::default())]);
        assert!(
            t.line(true)
                .ends_with("; mock: each turn reports the `usage` its script gives, 0 without one")
        );
        assert!(!t.line(false).contains("mock"));
    }

    #[test]
    fn changes_read_as_absolute_and_relative() {
        let c = TokenChange::between(Some(3434.0), Some(1302.0));
        assert_eq!(c.delta, Some(-2132.0));
        assert_eq!(c.text(), "3,434 → 1,302 (-2,132, -62.1%)");
        assert_eq!(
            TokenChange::between(Some(100.0), Some(150.0)).text(),
            "100 → 150 (+50, +50.0%)"
        );
        assert_eq!(
            TokenChange::between(Some(100.0), Some(100.0)).text(),
            "100 → 100 (+0, +0.0%)"
        );
        // No relative change from 0, no change at all from or to none.
        let from_zero = TokenChange::between(Some(0.0), Some(12.0));
        assert_eq!(from_zero.relative, None);
        assert_eq!(from_zero.text(), "0 → 12 (+12)");
        let none = TokenChange::between(None, Some(12.0));
        assert_eq!((none.delta, none.relative), (None, None));
        assert_eq!(none.text(), "none → 12");
    }

    #[test]
    fn figures_group_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(51_510), "51,510");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(figure(3433.6), "3,434");
        assert_eq!(figure(f64::NAN), "none");
        assert_eq!(signed_count(-10_800), "-10,800");
        assert_eq!(signed_count(0), "+0");
        assert_eq!(signed_count(1234), "+1,234");
    }
}
