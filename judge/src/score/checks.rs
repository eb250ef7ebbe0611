//! Mechanical checks: the [`Check`] types an item lists, and how each is
//! scored against a finished run ([`score`]).
//!
//! Checks read the validated answer value and the run's tool calls; they
//! never see the model's raw text. An ERROR run is not scored at all (its
//! checks are recorded as skipped by the runner).

use crate::green_red::Verdict;
use crate::score::envelope::short;
use crate::score::rubric::Judgement;
use indexmap::IndexMap;
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::approval::ApprovalOutcome;
use tribunal_runtime::backend::ScriptTurn;
use tribunal_runtime::text::one_line;
use tribunal_runtime::{OutputSchema, RunReport};

mod kind;
mod text;
mod trajectory;

pub use kind::CheckKind;
pub use text::answer_text;

/// One check, as written in an item's `"checks"` array (`{"type": …}`,
/// one of the [`CheckKind`] names).
///
/// Unknown fields are refused (a misspelt `tol` must not pass silently),
/// except `description`, which is free text for humans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Check {
    /// The run produced a JSON answer.
    JsonValid {
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer validates against `schema`, or the arena's schema when
    /// `schema` is absent.
    JsonSchema {
        /// An inline schema. Default: the arena's output schema.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schema: Option<Value>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The value at `path` equals `value`: numbers within `tol` when given,
    /// two strings trimmed and case-insensitively, anything else exactly.
    JsonPathEquals {
        /// Dotted path (`a.b.0.c`); numeric parts index arrays; an optional
        /// leading `$.` is ignored.
        path: String,
        /// The expected value.
        value: Value,
        /// Absolute numeric tolerance. Default: none (exact).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tol: Option<f64>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The tool `name` was called at least `min` times.
    ToolUsed {
        /// The tool name.
        name: String,
        /// Least number of successful calls (failed calls do not count).
        /// Default: 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u32>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer text contains `value` (case-insensitive).
    Contains {
        /// The text to find.
        value: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer text does not contain `value` (case-insensitive).
    NotContains {
        /// The text that must be absent.
        value: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer text matches the regular expression `pattern`.
    Regex {
        /// A `regex` crate pattern.
        pattern: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer's top-level `verdict` field equals `verdict` exactly.
    VerdictEquals {
        /// `GREEN` or `RED`, spelt exactly so: anything else (`"green"`) is
        /// a problem of the dataset line, never a gold verdict that is
        /// silently not one.
        verdict: crate::green_red::Verdict,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer text contains `value`, ignoring case (agentic-arena's
    /// name; `contains` ignores case too).
    Icontains {
        /// The text to find.
        value: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer text matches the pattern `value`, ignoring case.
    Iregex {
        /// A `regex` crate pattern, matched case-insensitively.
        value: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// Some number in the answer lies within `tol` of `value`: a JSON
    /// number anywhere in it, or a number written in one of its strings
    /// (`1,250.5`, `-3`, `45%`, `2e3`).
    NumericEquals {
        /// The expected number.
        value: f64,
        /// Absolute tolerance. Default: 0 (the same number).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tol: Option<f64>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The tool `name` was never called (a failed call is a call too).
    ToolNotUsed {
        /// The tool name.
        name: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// No tool was called at all.
    NoTool {
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// At least `value` tool calls were made (of any tool, failed ones
    /// included).
    MinToolCalls {
        /// The least number of calls.
        value: u32,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// At most `value` tool calls were made (of any tool, failed ones
    /// included).
    MaxToolCalls {
        /// The most calls allowed.
        value: u32,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The answer has between `min` and `max` sentences (each bound
    /// optional, at least one given). A sentence ends at `.`, `!`, `?` or
    /// `…` followed by a space or the end, so `3.14` and `example.com` end
    /// none; a JSON answer counts the sentences of its strings.
    SentenceCount {
        /// The least number of sentences.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u32>,
        /// The most sentences allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// Each named tool was called exactly the given number of times (failed
    /// calls included; tools not named are not constrained).
    CallCounts {
        /// Tool name → exact number of calls.
        counts: IndexMap<String, u32>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The names of the tools called, in call order, against `tools`
    /// under `mode` (see [`SequenceMode`]).
    ToolSequence {
        /// The expected tool names.
        tools: Vec<String>,
        /// How the calls are compared with `tools`. Default: `strict`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<SequenceMode>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// Some call of the tool `name` has arguments whose value at `path`
    /// equals `value` (the `json_path_equals` rules, `tol` included).
    ToolArgsMatch {
        /// The tool name.
        name: String,
        /// Dotted path into the call's arguments (`path`, `filters.0.k`).
        path: String,
        /// The expected value.
        value: Value,
        /// Absolute numeric tolerance. Default: none (exact).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tol: Option<f64>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// A judge model reads the item's input and the answer against
    /// `rubric` and returns GREEN or RED (see [`crate::score::rubric`]); the check
    /// holds when the verdict is `pass_when`. A judge that fails makes the
    /// item ERROR.
    Rubric {
        /// What the answer must do, for the judge.
        rubric: String,
        /// The verdict that passes the check. Default: GREEN.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pass_when: Option<Verdict>,
        /// The judge's turns in mock mode (a verdict envelope answer).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mock: Option<Vec<ScriptTurn>>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// The calls that approval (`[approval]` of arena.toml) treated as
    /// `outcome` — of tool `tool` when given — number between `min` and
    /// `max` (at least one bound given): `{"outcome": "denied", "max": 0}`
    /// holds when the agent never asked for a denied tool.
    Approvals {
        /// `approved`, `modified`, `invalid_modification`, `rejected`,
        /// `denied` or `terminated`.
        outcome: ApprovalOutcome,
        /// Only this tool's calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// The fewest such calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u32>,
        /// The most such calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
}

/// How `tool_sequence` compares the tools called with the expected list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SequenceMode {
    /// The same tools in the same order, nothing more.
    #[default]
    Strict,
    /// The same tools as often, in any order.
    Unordered,
    /// Only expected tools, each at most as often as listed (every call
    /// was expected; some expected ones may be missing).
    Subset,
    /// Every expected tool at least as often as listed, in any order
    /// (other calls may come too).
    Superset,
}

impl Check {
    /// The check's type (`"type"` as written).
    pub fn kind(&self) -> CheckKind {
        match self {
            Check::JsonValid { .. } => CheckKind::JsonValid,
            Check::JsonSchema { .. } => CheckKind::JsonSchema,
            Check::JsonPathEquals { .. } => CheckKind::JsonPathEquals,
            Check::ToolUsed { .. } => CheckKind::ToolUsed,
            Check::Contains { .. } => CheckKind::Contains,
            Check::NotContains { .. } => CheckKind::NotContains,
            Check::Regex { .. } => CheckKind::Regex,
            Check::VerdictEquals { .. } => CheckKind::VerdictEquals,
            Check::Icontains { .. } => CheckKind::Icontains,
            Check::Iregex { .. } => CheckKind::Iregex,
            Check::NumericEquals { .. } => CheckKind::NumericEquals,
            Check::ToolNotUsed { .. } => CheckKind::ToolNotUsed,
            Check::NoTool { .. } => CheckKind::NoTool,
            Check::MinToolCalls { .. } => CheckKind::MinToolCalls,
            Check::MaxToolCalls { .. } => CheckKind::MaxToolCalls,
            Check::SentenceCount { .. } => CheckKind::SentenceCount,
            Check::CallCounts { .. } => CheckKind::CallCounts,
            Check::ToolSequence { .. } => CheckKind::ToolSequence,
            Check::ToolArgsMatch { .. } => CheckKind::ToolArgsMatch,
            Check::Rubric { .. } => CheckKind::Rubric,
            Check::Approvals { .. } => CheckKind::Approvals,
        }
    }
}

/// A check of an item, ready to score: the parsed check, its spec as
/// written, and what scoring needs compiled in advance.
#[derive(Debug, Clone)]
pub struct ItemCheck {
    /// The parsed check.
    pub check: Check,
    /// The check exactly as written in the dataset (shared with every
    /// result of it).
    pub spec: std::sync::Arc<Value>,
    /// A compiled schema (`json_schema`: the inline one or the arena's).
    pub(crate) schema: Option<std::sync::Arc<OutputSchema>>,
    /// A compiled pattern (`regex`, `iregex`).
    pub(crate) regex: Option<Regex>,
    /// A `rubric` check's mock judge turns, built once into shared steps.
    pub(crate) judge_mock: Option<std::sync::Arc<[tribunal_runtime::backend::ScriptStep]>>,
}

impl ItemCheck {
    /// The result of this `rubric` check under `judgement`.
    pub fn judged(&self, judgement: &Judgement) -> CheckResult {
        let pass_when = match &self.check {
            Check::Rubric { pass_when, .. } => pass_when.unwrap_or(Verdict::Green),
            _ => Verdict::Green,
        };
        let (ok, detail) = rubric_result(judgement, pass_when);
        CheckResult {
            kind: self.check.kind(),
            ok,
            detail,
            spec: self.spec.clone(),
        }
    }
}

/// The result of one check: `{type, ok, detail, spec}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The check type.
    #[serde(rename = "type")]
    pub kind: CheckKind,
    /// Whether it held.
    pub ok: bool,
    /// Why, in one line (expected and actual values on a failure).
    pub detail: String,
    /// The check as written (one copy, shared by every run's result of
    /// the check).
    pub spec: std::sync::Arc<Value>,
}

/// Scores every check of an item against a run that produced an answer.
/// A `rubric` check does not hold here ("not judged"): the runner replaces
/// its result with [`ItemCheck::judged`] once the judge has spoken.
pub fn score(checks: &[ItemCheck], answer: Option<&Value>, report: &RunReport) -> Vec<CheckResult> {
    checks
        .iter()
        .map(|c| {
            let (ok, detail) = score_one(c, answer, report);
            CheckResult {
                kind: c.check.kind(),
                ok,
                detail,
                spec: c.spec.clone(),
            }
        })
        .collect()
}

fn score_one(c: &ItemCheck, answer: Option<&Value>, report: &RunReport) -> (bool, String) {
    let calls = &report.tool_calls;
    match (&c.check, answer) {
        (Check::ToolUsed { name, min, .. }, _) => {
            trajectory::tool_used(calls, name, min.unwrap_or(1))
        }
        (Check::ToolNotUsed { name, .. }, _) => trajectory::tool_not_used(calls, name),
        (Check::NoTool { .. }, _) => trajectory::no_tool(calls),
        (Check::MinToolCalls { value, .. }, _) => trajectory::call_total(calls, *value, true),
        (Check::MaxToolCalls { value, .. }, _) => trajectory::call_total(calls, *value, false),
        (Check::CallCounts { counts, .. }, _) => trajectory::call_counts(calls, counts),
        (Check::ToolSequence { tools, mode, .. }, _) => {
            trajectory::tool_sequence(calls, tools, mode.unwrap_or_default())
        }
        (
            Check::ToolArgsMatch {
                name,
                path,
                value,
                tol,
                ..
            },
            _,
        ) => trajectory::tool_args_match(calls, name, path, value, *tol),
        (
            Check::Approvals {
                outcome,
                tool,
                min,
                max,
                ..
            },
            _,
        ) => trajectory::approvals(&report.approvals, *outcome, tool.as_deref(), *min, *max),
        (_, None) => (false, "the run produced no answer".to_string()),
        (_, Some(answer)) => score_answer(c, answer),
    }
}

fn score_answer(c: &ItemCheck, answer: &Value) -> (bool, String) {
    match &c.check {
        Check::JsonValid { .. } => (true, "the answer is JSON".to_string()),
        Check::JsonSchema { .. } => match &c.schema {
            None => (false, "no schema to validate against".to_string()),
            Some(schema) => {
                let issues = schema.validator().issues(answer);
                match issues.first() {
                    None => (true, "the answer matches the schema".to_string()),
                    Some(first) => (
                        false,
                        format!(
                            "{} problem(s); first at {:?}: {}",
                            issues.len(),
                            first.path,
                            one_line(&first.message, 200)
                        ),
                    ),
                }
            }
        },
        Check::JsonPathEquals {
            path, value, tol, ..
        } => match lookup(answer, path) {
            None => (false, format!("{path}: not found")),
            Some(actual) => {
                let ok = values_equal(actual, value, *tol);
                let tol = tol.map(|t| format!(" (tol {t})")).unwrap_or_default();
                (
                    ok,
                    format!("{path}: expected {value}{tol}, got {}", short(actual)),
                )
            }
        },
        Check::Contains { value, .. } | Check::Icontains { value, .. } => {
            let found = contains_ci(&answer_text(answer), value);
            (found, format!("{value:?} {}", found_word(found)))
        }
        Check::NotContains { value, .. } => {
            let found = contains_ci(&answer_text(answer), value);
            (!found, format!("{value:?} {}", found_word(found)))
        }
        Check::Regex { pattern, .. } | Check::Iregex { value: pattern, .. } => match &c.regex {
            None => (false, format!("invalid pattern {pattern:?}")),
            Some(re) => {
                let m = re.is_match(&answer_text(answer));
                (
                    m,
                    format!("/{pattern}/ {}", if m { "matched" } else { "no match" }),
                )
            }
        },
        Check::NumericEquals { value, tol, .. } => {
            let tol = tol.unwrap_or(0.0);
            let numbers = text::numbers_in(answer);
            let hit = numbers.iter().find(|x| (*x - value).abs() <= tol);
            let within = if tol > 0.0 {
                format!("{value} ± {tol}")
            } else {
                value.to_string()
            };
            match hit {
                Some(x) => (true, format!("found {x}, expected {within}")),
                None => (
                    false,
                    format!("no number within {within} among {} found", numbers.len()),
                ),
            }
        }
        Check::SentenceCount { min, max, .. } => {
            let n = text::sentence_count(answer);
            let (ok, bounds) = count_within(n, *min, *max);
            (ok, format!("{n} sentence(s), {bounds} required"))
        }
        Check::VerdictEquals { verdict, .. } => match answer.get("verdict") {
            Some(Value::String(v)) => (
                v == verdict.as_str(),
                format!(
                    "expected verdict {}, got {}",
                    verdict.as_str(),
                    one_line(v, 120)
                ),
            ),
            Some(other) => (false, format!("verdict is not a string: {}", short(other))),
            None => (false, "the answer has no verdict".to_string()),
        },
        // Scored in `score_one`; they read the tool calls, not the answer.
        Check::ToolUsed { .. }
        | Check::ToolNotUsed { .. }
        | Check::NoTool { .. }
        | Check::MinToolCalls { .. }
        | Check::MaxToolCalls { .. }
        | Check::CallCounts { .. }
        | Check::ToolSequence { .. }
        | Check::ToolArgsMatch { .. }
        | Check::Approvals { .. } => (true, String::new()),
        // Scored from its judgement in `score_judged`.
        Check::Rubric { .. } => (false, "not judged".to_string()),
    }
}

/// A rubric check's result from its judgement.
fn rubric_result(judgement: &Judgement, pass_when: Verdict) -> (bool, String) {
    match judgement {
        Judgement::Judged {
            verdict,
            reason,
            score,
        } => {
            let score = score.map(|s| format!(", score {s}")).unwrap_or_default();
            (
                *verdict == pass_when,
                format!(
                    "judge: {verdict}{score} (passes on {pass_when}): {}",
                    one_line(reason, 200)
                ),
            )
        }
        Judgement::Failed(code) => (false, format!("the judge failed: {}", code.as_str())),
    }
}

/// The value at a dotted `path` (`a.b.0.c`; numeric parts index arrays; an
/// optional leading `$.` is ignored; an empty path is the root).
pub fn lookup<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let path = path.strip_prefix('$').unwrap_or(path);
    let path = path.strip_prefix('.').unwrap_or(path);
    if path.is_empty() {
        return Some(root);
    }
    path.split('.').try_fold(root, |v, part| match v {
        Value::Object(map) => map.get(part),
        Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// Whether `actual` equals `expected` under the `json_path_equals` rules.
pub fn values_equal(actual: &Value, expected: &Value, tol: Option<f64>) -> bool {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => match (a.as_f64(), e.as_f64()) {
            (Some(a), Some(e)) => match (tol, actual.as_i64(), expected.as_i64()) {
                (Some(t), _, _) => (a - e).abs() <= t,
                // Two integers: compare exactly, not through f64 rounding
                // (2^53 + 1 and 2^53 are one f64).
                (None, Some(x), Some(y)) => x == y,
                (None, _, _) => a == e,
            },
            _ => false,
        },
        (Value::String(a), Value::String(e)) => a.trim().to_lowercase() == e.trim().to_lowercase(),
        _ => actual == expected,
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

fn found_word(found: bool) -> &'static str {
    if found { "found" } else { "not found" }
}

/// Whether a count `n` lies within `min ..= max` (either bound optional),
/// and the bounds as a report says them ("2 to 4", "at least 1", …).
fn count_within(n: usize, min: Option<u32>, max: Option<u32>) -> (bool, String) {
    let ok = min.is_none_or(|m| n >= m as usize) && max.is_none_or(|m| n <= m as usize);
    let bounds = match (min, max) {
        (Some(lo), Some(hi)) => format!("{lo} to {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => "any number".to_string(),
    };
    (ok, bounds)
}

#[cfg(test)]
mod tests;
