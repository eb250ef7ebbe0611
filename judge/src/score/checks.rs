//! Mechanical checks: the [`Check`] types an item lists, each declared once
//! (`checks!` below: its variant, its [`CheckKind`] and the facts the docs
//! list), and how each is scored against a finished run ([`score`]).
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
use tribunal_runtime::internal::approval::ApprovalOutcome;
use tribunal_runtime::internal::backend::ScriptTurn;
use tribunal_runtime::internal::text::one_line;
use tribunal_runtime::{OutputSchema, RunReport};

mod kind;
mod state;
mod text;
mod trajectory;

pub use state::world_path;
pub use text::answer_text;

/// Declares the check types, each once and in the documentation's order:
/// its doc, its `#[check]` facts (the `"type"` it is written with, the
/// fields and the one-line summary the docs' table lists) and its fields.
/// [`Check`] (every variant also takes a `description`, added here),
/// [`CheckKind`] (`ALL`, `as_str`, `fields`, `summary`) and [`Check::kind`]
/// come from that one declaration.
macro_rules! checks {
    ($(
        $(#[doc = $doc:literal])*
        #[check(name = $name:literal, fields = $fields:literal, summary = $summary:literal)]
        $variant:ident { $($field:tt)* },
    )*) => {
        /// One check, as written in an item's `"checks"` array (`{"type": …}`,
        /// one of the [`CheckKind`] names).
        ///
        /// Unknown fields are refused (a misspelt `tol` must not pass silently),
        /// except `description`, which is free text for humans.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type", deny_unknown_fields)]
        #[non_exhaustive]
        pub enum Check {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $name)]
                $variant {
                    $($field)*
                    /// Free text for humans.
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    description: Option<String>,
                },
            )*
        }

        /// A check's type: the `"type"` an item's check is written with, the
        /// type a [`CheckResult`] records, and the names lint messages list;
        /// serialised as its name (`json_path_equals`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[non_exhaustive]
        pub enum CheckKind {
            $(
                #[doc = concat!("`", $name, "`: ", $summary, ".")]
                #[serde(rename = $name)]
                $variant,
            )*
        }

        impl Check {
            /// The check's type (`"type"` as written).
            pub fn kind(&self) -> CheckKind {
                match self {
                    $( Check::$variant { .. } => CheckKind::$variant, )*
                }
            }
        }

        impl CheckKind {
            /// Every check type, in documentation order.
            pub const ALL: [CheckKind; [$($name),*].len()] = [$(CheckKind::$variant),*];

            /// The type's name as written in a dataset and in result rows.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( CheckKind::$variant => $name, )*
                }
            }

            /// The fields a check of this type is written with (optional ones in
            /// brackets), as the docs list them. Every check also takes an optional
            /// `description`.
            pub fn fields(self) -> &'static str {
                match self {
                    $( CheckKind::$variant => $fields, )*
                }
            }

            /// What a check of this type holds when it passes, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $( CheckKind::$variant => $summary, )*
                }
            }
        }
    };
}

checks! {
    /// The run produced a JSON answer.
    #[check(
        name = "json_valid",
        fields = "",
        summary = "the run produced a JSON answer"
    )]
    JsonValid {},
    /// The answer validates against `schema`, or the arena's schema when
    /// `schema` is absent.
    #[check(
        name = "json_schema",
        fields = "[schema]",
        summary = "the answer validates against `schema` (default: the arena's schema)"
    )]
    JsonSchema {
        /// An inline schema. Default: the arena's output schema.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schema: Option<Value>,
    },
    /// The value at `path` equals `value`: numbers within `tol` when given,
    /// anything else exactly; two strings ignoring case or surrounding
    /// white space only when the check asks for it by name.
    #[check(
        name = "json_path_equals",
        fields = "path, value, [tol], [ignore_case], [trim]",
        summary = "the value at the dotted `path` equals `value` exactly (numbers within `tol`; strings ignoring case with `ignore_case: true`, surrounding white space with `trim: true`)"
    )]
    JsonPathEquals {
        /// Dotted path (`a.b.0.c`); numeric parts index arrays; an optional
        /// leading `$.` is ignored.
        path: String,
        /// The expected value.
        value: Value,
        /// Absolute numeric tolerance. Default: none (exact).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tol: Option<f64>,
        /// Two strings are equal ignoring case. Default: false (exact).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ignore_case: bool,
        /// Two strings are equal without their leading and trailing white
        /// space. Default: false (exact).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        trim: bool,
    },
    /// The answer's top-level `verdict` field equals `verdict` exactly.
    #[check(
        name = "verdict_equals",
        fields = "verdict",
        summary = "the answer's top-level `verdict` is `verdict` exactly"
    )]
    VerdictEquals {
        /// `GREEN` or `RED`, spelt exactly so: anything else (`"green"`) is
        /// a problem of the dataset line, never a gold verdict that is
        /// silently not one.
        verdict: crate::green_red::Verdict,
    },
    /// The answer text contains `value` (case-insensitive).
    #[check(
        name = "contains",
        fields = "value",
        summary = "the answer text contains `value`, ignoring case"
    )]
    Contains {
        /// The text to find.
        value: String,
    },
    /// The answer text contains `value`, ignoring case (agentic-arena's
    /// name; `contains` ignores case too).
    #[check(
        name = "icontains",
        fields = "value",
        summary = "the answer text contains `value`, ignoring case (agentic-arena's name for `contains`)"
    )]
    Icontains {
        /// The text to find.
        value: String,
    },
    /// The answer text does not contain `value` (case-insensitive).
    #[check(
        name = "not_contains",
        fields = "value",
        summary = "the answer text does not contain `value`, ignoring case"
    )]
    NotContains {
        /// The text that must be absent.
        value: String,
    },
    /// The answer text matches the regular expression `pattern`.
    #[check(
        name = "regex",
        fields = "pattern",
        summary = "the answer text matches the regular expression `pattern`"
    )]
    Regex {
        /// A `regex` crate pattern.
        pattern: String,
    },
    /// The answer text matches the pattern `value`, ignoring case.
    #[check(
        name = "iregex",
        fields = "value",
        summary = "the answer text matches the regular expression `value`, ignoring case"
    )]
    Iregex {
        /// A `regex` crate pattern, matched case-insensitively.
        value: String,
    },
    /// Some number in the answer lies within `tol` of `value`: a JSON
    /// number anywhere in it, or a number written in one of its strings
    /// (`1,250.5`, `-3`, `45%`, `2e3`).
    #[check(
        name = "numeric_equals",
        fields = "value, [tol], [anywhere]",
        summary = "the one number in the answer (a JSON number, or written in a string: `1,250.5`) lies within `tol` (default 0) of `value`; with `anywhere: true`, any number in it may"
    )]
    NumericEquals {
        /// The expected number.
        value: f64,
        /// Absolute tolerance. Default: 0 (the same number).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tol: Option<f64>,
        /// Any number of the answer may be the one. Default: false (the
        /// answer holds exactly one number, and it is this one).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        anywhere: bool,
    },
    /// The answer has between `min` and `max` sentences (each bound
    /// optional, at least one given). A sentence ends at `.`, `!`, `?` or
    /// `…` followed by a space or the end, so `3.14` and `example.com` end
    /// none; a JSON answer counts the sentences of its strings.
    #[check(
        name = "sentence_count",
        fields = "[min], [max]",
        summary = "the answer has `min` to `max` sentences (a `.`, `!`, `?` or `…` before a space or the end ends one; `3.14` does not)"
    )]
    SentenceCount {
        /// The least number of sentences.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u32>,
        /// The most sentences allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
    /// The tool `name` was called at least `min` times.
    #[check(
        name = "tool_used",
        fields = "name, [min]",
        summary = "the tool `name` succeeded at least `min` times (default 1; failed calls do not count)"
    )]
    ToolUsed {
        /// The tool name.
        name: String,
        /// Least number of successful calls (failed calls do not count).
        /// Default: 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u32>,
    },
    /// The tool `name` was never called (a failed call is a call too).
    #[check(
        name = "tool_not_used",
        fields = "name",
        summary = "the tool `name` was never called"
    )]
    ToolNotUsed {
        /// The tool name.
        name: String,
    },
    /// No tool was called at all.
    #[check(
        name = "no_tool",
        fields = "",
        summary = "no tool was called"
    )]
    NoTool {},
    /// At least `value` tool calls were made (of any tool, failed ones
    /// included).
    #[check(
        name = "min_tool_calls",
        fields = "value",
        summary = "at least `value` tool calls were made"
    )]
    MinToolCalls {
        /// The least number of calls.
        value: u32,
    },
    /// At most `value` tool calls were made (of any tool, failed ones
    /// included).
    #[check(
        name = "max_tool_calls",
        fields = "value",
        summary = "at most `value` tool calls were made"
    )]
    MaxToolCalls {
        /// The most calls allowed.
        value: u32,
    },
    /// Each named tool was called exactly the given number of times (failed
    /// calls included; tools not named are not constrained).
    #[check(
        name = "call_counts",
        fields = "counts",
        summary = "each tool in `counts` (`{\"name\": n}`) was called exactly n times"
    )]
    CallCounts {
        /// Tool name → exact number of calls.
        counts: IndexMap<String, u32>,
    },
    /// The names of the tools called, in call order, against `tools`
    /// under `mode` (see [`SequenceMode`]).
    #[check(
        name = "tool_sequence",
        fields = "tools, [mode]",
        summary = "the tools called match `tools` under `mode`: `strict` (same order, default), `unordered`, `subset` (only listed ones), `superset` (all listed ones)"
    )]
    ToolSequence {
        /// The expected tool names.
        tools: Vec<String>,
        /// How the calls are compared with `tools`. Default: `strict`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<SequenceMode>,
    },
    /// Some call of the tool `name` has arguments whose value at `path`
    /// equals `value` (the `json_path_equals` rules, `tol` included).
    #[check(
        name = "tool_args_match",
        fields = "name, path, value, [tol]",
        summary = "some call of `name` has arguments whose value at `path` equals `value` (the `json_path_equals` rules)"
    )]
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
    },
    /// The calls that approval (`[approval]` of arena.toml) treated as
    /// `outcome` — of tool `tool` when given — number between `min` and
    /// `max` (at least one bound given): `{"outcome": "denied", "max": 0}`
    /// holds when the agent never asked for a denied tool.
    #[check(
        name = "approvals",
        fields = "outcome, [tool], [min], [max]",
        summary = "the calls `[approval]` treated as `outcome` (`approved`, `modified`, `invalid_modification`, `rejected`, `denied`, `terminated`), of `tool` when given, number from `min` to `max`"
    )]
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
    },
    /// `command` (a program and its arguments, no shell) run in the
    /// sandbox on the run's final working copy, after the agent finished
    /// (a `shell` arena's): holds when it exits 0. Its exit code, the
    /// limit that cut it and the end of its output are the detail.
    #[check(
        name = "command_passes",
        fields = "command, [timeout_secs]",
        summary = "`command` (`[\"python3\", \"-m\", \"unittest\"]`) exits 0 in the sandbox on the run's final copy (`shell` arenas); `timeout_secs` default: `[sandbox]`'s"
    )]
    CommandPasses {
        /// The program and its arguments (`["sh", "-c", "LINE"]` for a
        /// shell line).
        command: Vec<String>,
        /// The command's wall time. Default: `[sandbox]`'s `timeout_secs`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_secs: Option<u64>,
    },
    /// After the run, the JSON file at `path` in the run's world (its copy
    /// of the arena's folder) holds `value` at the JSON pointer `pointer`
    /// (compared as `json_path_equals` does, without a tolerance).
    #[check(
        name = "file_json",
        fields = "path, pointer, value",
        summary = "after the run, the JSON file `path` of the run's world holds `value` at the JSON pointer `pointer`"
    )]
    FileJson {
        /// The file, relative to the world's folder (no `..`, not absolute).
        path: String,
        /// An RFC 6901 pointer (`/orders/0/status`; `""`: the whole file).
        pointer: String,
        /// The expected value.
        value: Value,
    },
    /// After the run, the file at `path` in the run's world contains
    /// `value` (case-insensitive), or with `absent: true` does not.
    #[check(
        name = "file_contains",
        fields = "path, value, [absent]",
        summary = "after the run, the file `path` of the run's world contains `value`, ignoring case (`absent`: does not)"
    )]
    FileContains {
        /// The file, relative to the world's folder (no `..`, not absolute).
        path: String,
        /// The text to find.
        value: String,
        /// The text must be absent. Default: false.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        absent: Option<bool>,
    },
    /// A judge model reads the item's input and the answer against
    /// `rubric` and returns GREEN or RED (see [`crate::score::rubric`]); the check
    /// holds when the verdict is `pass_when`. A judge that fails makes the
    /// item ERROR.
    #[check(
        name = "rubric",
        fields = "rubric, [pass_when], [mock]",
        summary = "a judge model (`[judge]`) reads the input and the answer against `rubric` and says GREEN or RED; holds when that is `pass_when` (default GREEN); a failed judge makes the item ERROR; `mock`: the judge's turns in mock mode"
    )]
    Rubric {
        /// What the answer must do, for the judge.
        rubric: String,
        /// The verdict that passes the check. Default: GREEN.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pass_when: Option<Verdict>,
        /// The judge's turns in mock mode (a verdict envelope answer).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mock: Option<Vec<ScriptTurn>>,
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
    pub(crate) judge_mock:
        Option<std::sync::Arc<[tribunal_runtime::internal::backend::ScriptStep]>>,
}

impl ItemCheck {
    #[doc(hidden)] // no promise: read by tribunal's own crates
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
    score_in(checks, answer, report, None)
}

/// [`score`], the state checks (`file_json`, `file_contains`) reading the
/// run's world folder `world` (`None`: the run had none; they fail).
pub fn score_in(
    checks: &[ItemCheck],
    answer: Option<&Value>,
    report: &RunReport,
    world: Option<&std::path::Path>,
) -> Vec<CheckResult> {
    checks
        .iter()
        .map(|c| {
            let (ok, detail) = match &c.check {
                Check::FileJson {
                    path,
                    pointer,
                    value,
                    ..
                } => state::file_json(world, path, pointer, value),
                Check::FileContains {
                    path,
                    value,
                    absent,
                    ..
                } => state::file_contains(world, path, value, absent.unwrap_or(false)),
                _ => score_one(c, answer, report),
            };
            CheckResult {
                kind: c.check.kind(),
                ok,
                detail,
                spec: c.spec.clone(),
            }
        })
        .collect()
}

/// A check of the answer, on a run that produced none.
#[derive(Debug, Clone, Copy)]
struct NoAnswer;

fn score_one(c: &ItemCheck, answer: Option<&Value>, report: &RunReport) -> (bool, String) {
    scored(c, answer.ok_or(NoAnswer), report)
        .unwrap_or_else(|NoAnswer| (false, "the run produced no answer".to_string()))
}

/// One check's result. The checks of the tool calls need no answer; the
/// checks of the answer are [`NoAnswer`] without one.
fn scored(
    c: &ItemCheck,
    answer: Result<&Value, NoAnswer>,
    report: &RunReport,
) -> Result<(bool, String), NoAnswer> {
    let calls = &report.tool_calls;
    Ok(match &c.check {
        Check::ToolUsed { name, min, .. } => trajectory::tool_used(calls, name, min.unwrap_or(1)),
        Check::ToolNotUsed { name, .. } => trajectory::tool_not_used(calls, name),
        Check::NoTool { .. } => trajectory::no_tool(calls),
        Check::MinToolCalls { value, .. } => trajectory::call_total(calls, *value, true),
        Check::MaxToolCalls { value, .. } => trajectory::call_total(calls, *value, false),
        Check::CallCounts { counts, .. } => trajectory::call_counts(calls, counts),
        Check::ToolSequence { tools, mode, .. } => {
            trajectory::tool_sequence(calls, tools, mode.unwrap_or_default())
        }
        Check::ToolArgsMatch {
            name,
            path,
            value,
            tol,
            ..
        } => trajectory::tool_args_match(calls, name, path, value, *tol),
        Check::Approvals {
            outcome,
            tool,
            min,
            max,
            ..
        } => trajectory::approvals(&report.approvals, *outcome, tool.as_deref(), *min, *max),
        Check::JsonValid { .. } => {
            answer?;
            (true, "the answer is JSON".to_string())
        }
        Check::JsonSchema { .. } => {
            let answer = answer?;
            match &c.schema {
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
            }
        }
        Check::JsonPathEquals {
            path,
            value,
            tol,
            ignore_case,
            trim,
            ..
        } => match lookup(answer?, path) {
            None => (false, format!("{path}: not found")),
            Some(actual) => {
                let lenient = Leniency {
                    ignore_case: *ignore_case,
                    trim: *trim,
                };
                let ok = values_equal_with(actual, value, *tol, lenient);
                let tol = tol.map(|t| format!(" (tol {t})")).unwrap_or_default();
                (
                    ok,
                    format!(
                        "{path}: expected {value}{tol}{}, got {}",
                        lenient.said(),
                        short(actual)
                    ),
                )
            }
        },
        Check::Contains { value, .. } | Check::Icontains { value, .. } => {
            let found = contains_ci(&answer_text(answer?), value);
            (found, format!("{value:?} {}", found_word(found)))
        }
        Check::NotContains { value, .. } => {
            let found = contains_ci(&answer_text(answer?), value);
            (!found, format!("{value:?} {}", found_word(found)))
        }
        Check::Regex { pattern, .. } | Check::Iregex { value: pattern, .. } => {
            let answer = answer?;
            match &c.regex {
                None => (false, format!("invalid pattern {pattern:?}")),
                Some(re) => {
                    let m = re.is_match(&answer_text(answer));
                    (
                        m,
                        format!("/{pattern}/ {}", if m { "matched" } else { "no match" }),
                    )
                }
            }
        }
        Check::NumericEquals {
            value,
            tol,
            anywhere,
            ..
        } => {
            let tol = tol.unwrap_or(0.0);
            let numbers = text::numbers_in(answer?);
            let within = if tol > 0.0 {
                format!("{value} ± {tol}")
            } else {
                value.to_string()
            };
            let near = |x: &&f64| (*x - value).abs() <= tol;
            match (anywhere, numbers.as_slice()) {
                (true, _) => match numbers.iter().find(near) {
                    Some(x) => (
                        true,
                        format!("found {x}, expected {within} (anywhere: any number counts)"),
                    ),
                    None => (
                        false,
                        format!("no number within {within} among {} found", numbers.len()),
                    ),
                },
                (false, [x]) => (near(&x), format!("found {x}, expected {within}")),
                (false, []) => (false, format!("no number found, expected {within}")),
                (false, more) => (
                    false,
                    format!(
                        "{} numbers found, expected the one number {within} (`anywhere: true` lets any of them count)",
                        more.len()
                    ),
                ),
            }
        }
        Check::SentenceCount { min, max, .. } => {
            let n = text::sentence_count(answer?);
            let (ok, bounds) = count_within(n, *min, *max);
            (ok, format!("{n} sentence(s), {bounds} required"))
        }
        Check::VerdictEquals { verdict, .. } => match answer?.get("verdict") {
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
        // Run on the run's copy by the runner (`score::command`).
        Check::CommandPasses { .. } => (false, "not run: the run has no working copy".to_string()),
        // Scored from its judgement: [`ItemCheck::judged`].
        Check::Rubric { .. } => {
            answer?;
            (false, "not judged".to_string())
        }
        // Scored on the run's world: [`score_in`].
        Check::FileJson { .. } | Check::FileContains { .. } => {
            (false, "no world to check".to_string())
        }
    })
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

/// The leniency a `json_path_equals` check asks for by name; none by
/// default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leniency {
    /// Two strings are equal ignoring case.
    pub ignore_case: bool,
    /// Two strings are equal without surrounding white space.
    pub trim: bool,
}

impl Leniency {
    /// What a check's detail says of it: ` (ignoring case, trimmed)`, or
    /// nothing when the comparison is exact.
    pub fn said(self) -> String {
        let named: Vec<&str> = [(self.ignore_case, "ignoring case"), (self.trim, "trimmed")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
        if named.is_empty() {
            String::new()
        } else {
            format!(" ({})", named.join(", "))
        }
    }
}

/// [`values_equal`], two strings compared with `lenient`.
pub fn values_equal_with(
    actual: &Value,
    expected: &Value,
    tol: Option<f64>,
    lenient: Leniency,
) -> bool {
    match (actual, expected) {
        (Value::String(a), Value::String(e)) => {
            let (a, e) = if lenient.trim {
                (a.trim(), e.trim())
            } else {
                (a.as_str(), e.as_str())
            };
            if lenient.ignore_case {
                a.to_lowercase() == e.to_lowercase()
            } else {
                a == e
            }
        }
        _ => values_equal(actual, expected, tol),
    }
}

/// Whether `actual` equals `expected` under the `json_path_equals` rules
/// without leniency: numbers within `tol`, anything else exactly.
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
