//! Mechanical checks: the [`Check`] types an item lists, and how each is
//! scored against a finished run ([`score`]).
//!
//! Checks read the validated answer value and the run's tool calls; they
//! never see the model's raw text. An ERROR run is not scored at all (its
//! checks are recorded as skipped by the runner).

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::text::one_line;
use tribunal_runtime::{OutputSchema, RunReport};

mod kind;

pub use kind::CheckKind;

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
        /// `GREEN` or `RED`.
        verdict: String,
        /// Free text for humans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
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
        }
    }
}

/// A check of an item, ready to score: the parsed check, its spec as
/// written, and what scoring needs compiled in advance.
#[derive(Debug, Clone)]
pub struct ItemCheck {
    /// The parsed check.
    pub check: Check,
    /// The check exactly as written in the dataset.
    pub spec: Value,
    /// A compiled schema (`json_schema`: the inline one or the arena's).
    pub(crate) schema: Option<std::sync::Arc<OutputSchema>>,
    /// A compiled pattern (`regex`).
    pub(crate) regex: Option<Regex>,
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
    /// The check as written.
    pub spec: Value,
}

/// Scores every check of an item against a run that produced an answer.
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
    match (&c.check, answer) {
        (Check::ToolUsed { name, min, .. }, _) => {
            // Only calls that ran and succeeded count: a call refused for
            // invalid arguments (or that crashed) did not use the tool.
            let min = min.unwrap_or(1);
            let calls: Vec<_> = report
                .tool_calls
                .iter()
                .filter(|t| &t.name == name)
                .collect();
            let ok = calls.iter().filter(|t| t.ok).count();
            let failed = calls.len() - ok;
            let detail = if failed == 0 {
                format!("{name} called {ok} time(s), at least {min} required")
            } else {
                format!(
                    "{name} called {ok} time(s) successfully ({failed} failed), at least {min} required"
                )
            };
            (ok >= min as usize, detail)
        }
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
        Check::Contains { value, .. } => {
            let found = contains_ci(&answer_text(answer), value);
            (found, format!("{value:?} {}", found_word(found)))
        }
        Check::NotContains { value, .. } => {
            let found = contains_ci(&answer_text(answer), value);
            (!found, format!("{value:?} {}", found_word(found)))
        }
        Check::Regex { pattern, .. } => match &c.regex {
            None => (false, format!("invalid pattern {pattern:?}")),
            Some(re) => {
                let m = re.is_match(&answer_text(answer));
                (
                    m,
                    format!("/{pattern}/ {}", if m { "matched" } else { "no match" }),
                )
            }
        },
        Check::VerdictEquals { verdict, .. } => match answer.get("verdict") {
            Some(Value::String(v)) => (
                v == verdict,
                format!("expected verdict {verdict}, got {}", one_line(v, 120)),
            ),
            Some(other) => (false, format!("verdict is not a string: {}", short(other))),
            None => (false, "the answer has no verdict".to_string()),
        },
        // Scored in `score_one`; it does not read the answer.
        Check::ToolUsed { .. } => (true, String::new()),
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

/// The text `contains`, `not_contains` and `regex` read: a string answer as
/// is, anything else as compact JSON.
pub fn answer_text(answer: &Value) -> String {
    match answer {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

fn found_word(found: bool) -> &'static str {
    if found { "found" } else { "not found" }
}

/// A value for a detail or error line: compact JSON on one line, cut to
/// 120 characters.
pub(crate) fn short(v: &Value) -> String {
    one_line(&v.to_string(), 120)
}

#[cfg(test)]
mod tests;
