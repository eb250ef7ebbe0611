//! [`CheckKind`]: the one list of check types — the `"type"` an item's
//! check is written with, the type a [`CheckResult`](super::CheckResult)
//! records, and the names lint messages list.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A check's type, serialised as its snake_case name (`json_path_equals`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckKind {
    /// `json_valid`: the run produced a JSON answer.
    JsonValid,
    /// `json_schema`: the answer validates against a schema.
    JsonSchema,
    /// `json_path_equals`: the value at a path equals the expected one.
    JsonPathEquals,
    /// `tool_used`: a tool was called successfully often enough.
    ToolUsed,
    /// `contains`: the answer text contains a string.
    Contains,
    /// `not_contains`: the answer text does not contain a string.
    NotContains,
    /// `regex`: the answer text matches a pattern.
    Regex,
    /// `verdict_equals`: the answer's verdict is the expected one.
    VerdictEquals,
    /// `icontains`: the answer text contains a string, ignoring case.
    Icontains,
    /// `iregex`: the answer text matches a pattern, ignoring case.
    Iregex,
    /// `numeric_equals`: some number in the answer is the expected one.
    NumericEquals,
    /// `tool_not_used`: a tool was never called.
    ToolNotUsed,
    /// `no_tool`: no tool was called.
    NoTool,
    /// `min_tool_calls`: at least so many tool calls.
    MinToolCalls,
    /// `max_tool_calls`: at most so many tool calls.
    MaxToolCalls,
    /// `sentence_count`: the answer's sentences within bounds.
    SentenceCount,
    /// `call_counts`: exact calls per tool name.
    CallCounts,
    /// `tool_sequence`: the tools called, against an expected list.
    ToolSequence,
    /// `tool_args_match`: a call's arguments hold an expected value.
    ToolArgsMatch,
    /// `rubric`: a judge model grades the answer against a rubric.
    Rubric,
    /// `approvals`: how many tool calls approval treated one way.
    Approvals,
}

impl CheckKind {
    /// Every check type, in documentation order.
    pub const ALL: [CheckKind; 21] = [
        CheckKind::JsonValid,
        CheckKind::JsonSchema,
        CheckKind::JsonPathEquals,
        CheckKind::VerdictEquals,
        CheckKind::Contains,
        CheckKind::Icontains,
        CheckKind::NotContains,
        CheckKind::Regex,
        CheckKind::Iregex,
        CheckKind::NumericEquals,
        CheckKind::SentenceCount,
        CheckKind::ToolUsed,
        CheckKind::ToolNotUsed,
        CheckKind::NoTool,
        CheckKind::MinToolCalls,
        CheckKind::MaxToolCalls,
        CheckKind::CallCounts,
        CheckKind::ToolSequence,
        CheckKind::ToolArgsMatch,
        CheckKind::Approvals,
        CheckKind::Rubric,
    ];

    /// The type's name as written in a dataset and in result rows.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::JsonValid => "json_valid",
            CheckKind::JsonSchema => "json_schema",
            CheckKind::JsonPathEquals => "json_path_equals",
            CheckKind::ToolUsed => "tool_used",
            CheckKind::Contains => "contains",
            CheckKind::NotContains => "not_contains",
            CheckKind::Regex => "regex",
            CheckKind::VerdictEquals => "verdict_equals",
            CheckKind::Icontains => "icontains",
            CheckKind::Iregex => "iregex",
            CheckKind::NumericEquals => "numeric_equals",
            CheckKind::ToolNotUsed => "tool_not_used",
            CheckKind::NoTool => "no_tool",
            CheckKind::MinToolCalls => "min_tool_calls",
            CheckKind::MaxToolCalls => "max_tool_calls",
            CheckKind::SentenceCount => "sentence_count",
            CheckKind::CallCounts => "call_counts",
            CheckKind::ToolSequence => "tool_sequence",
            CheckKind::ToolArgsMatch => "tool_args_match",
            CheckKind::Rubric => "rubric",
            CheckKind::Approvals => "approvals",
        }
    }

    /// The fields a check of this type is written with (optional ones in
    /// brackets), as the docs list them. Every check also takes an optional
    /// `description`.
    pub fn fields(self) -> &'static str {
        match self {
            CheckKind::JsonValid => "",
            CheckKind::JsonSchema => "[schema]",
            CheckKind::JsonPathEquals => "path, value, [tol]",
            CheckKind::VerdictEquals => "verdict",
            CheckKind::Contains | CheckKind::Icontains | CheckKind::NotContains => "value",
            CheckKind::Regex => "pattern",
            CheckKind::Iregex => "value",
            CheckKind::NumericEquals => "value, [tol]",
            CheckKind::SentenceCount => "[min], [max]",
            CheckKind::ToolUsed => "name, [min]",
            CheckKind::ToolNotUsed => "name",
            CheckKind::NoTool => "",
            CheckKind::MinToolCalls | CheckKind::MaxToolCalls => "value",
            CheckKind::CallCounts => "counts",
            CheckKind::ToolSequence => "tools, [mode]",
            CheckKind::ToolArgsMatch => "name, path, value, [tol]",
            CheckKind::Rubric => "rubric, [pass_when], [mock]",
            CheckKind::Approvals => "outcome, [tool], [min], [max]",
        }
    }

    /// What a check of this type holds when it passes, in one line.
    pub fn summary(self) -> &'static str {
        match self {
            CheckKind::JsonValid => "the run produced a JSON answer",
            CheckKind::JsonSchema => {
                "the answer validates against `schema` (default: the arena's schema)"
            }
            CheckKind::JsonPathEquals => {
                "the value at the dotted `path` equals `value` (numbers within `tol`; strings trimmed, ignoring case)"
            }
            CheckKind::VerdictEquals => "the answer's top-level `verdict` is `verdict` exactly",
            CheckKind::Contains => "the answer text contains `value`, ignoring case",
            CheckKind::Icontains => {
                "the answer text contains `value`, ignoring case (agentic-arena's name for `contains`)"
            }
            CheckKind::NotContains => "the answer text does not contain `value`, ignoring case",
            CheckKind::Regex => "the answer text matches the regular expression `pattern`",
            CheckKind::Iregex => {
                "the answer text matches the regular expression `value`, ignoring case"
            }
            CheckKind::NumericEquals => {
                "some number in the answer (a JSON number, or written in a string: `1,250.5`) lies within `tol` (default 0) of `value`"
            }
            CheckKind::SentenceCount => {
                "the answer has `min` to `max` sentences (a `.`, `!`, `?` or `…` before a space or the end ends one; `3.14` does not)"
            }
            CheckKind::ToolUsed => {
                "the tool `name` succeeded at least `min` times (default 1; failed calls do not count)"
            }
            CheckKind::ToolNotUsed => "the tool `name` was never called",
            CheckKind::NoTool => "no tool was called",
            CheckKind::MinToolCalls => "at least `value` tool calls were made",
            CheckKind::MaxToolCalls => "at most `value` tool calls were made",
            CheckKind::CallCounts => {
                "each tool in `counts` (`{\"name\": n}`) was called exactly n times"
            }
            CheckKind::ToolSequence => {
                "the tools called match `tools` under `mode`: `strict` (same order, default), `unordered`, `subset` (only listed ones), `superset` (all listed ones)"
            }
            CheckKind::ToolArgsMatch => {
                "some call of `name` has arguments whose value at `path` equals `value` (the `json_path_equals` rules)"
            }
            CheckKind::Approvals => {
                "the calls `[approval]` treated as `outcome` (`approved`, `modified`, `invalid_modification`, `rejected`, `denied`, `terminated`), of `tool` when given, number from `min` to `max`"
            }
            CheckKind::Rubric => {
                "a judge model (`[judge]`) reads the input and the answer against `rubric` and says GREEN or RED; holds when that is `pass_when` (default GREEN); a failed judge makes the item ERROR; `mock`: the judge's turns in mock mode"
            }
        }
    }

    /// The Markdown table of every check type (type, fields, meaning): the
    /// README's check reference is this table, and a test keeps it so.
    pub fn markdown_table() -> String {
        let mut out = String::from("| type | fields | passes when |\n|---|---|---|\n");
        for kind in CheckKind::ALL {
            let fields = match kind.fields() {
                "" => "—".to_string(),
                f => format!("`{f}`"),
            };
            out.push_str(&format!("| `{kind}` | {fields} | {} |\n", kind.summary()));
        }
        out
    }

    /// The type named `name`, if there is one.
    pub fn parse(name: &str) -> Option<CheckKind> {
        CheckKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The names of `kinds`, comma-separated (`json_valid, regex`).
    pub fn list(kinds: &[CheckKind]) -> String {
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        names.join(", ")
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::checks::Check;
    use serde_json::{Value, json};

    /// The position of `kind` in [`CheckKind::ALL`]. A match without a
    /// wildcard: a new variant does not compile until it is listed here,
    /// and the test below then fails until it is in `ALL` too.
    fn position(kind: CheckKind) -> usize {
        match kind {
            CheckKind::JsonValid => 0,
            CheckKind::JsonSchema => 1,
            CheckKind::JsonPathEquals => 2,
            CheckKind::VerdictEquals => 3,
            CheckKind::Contains => 4,
            CheckKind::Icontains => 5,
            CheckKind::NotContains => 6,
            CheckKind::Regex => 7,
            CheckKind::Iregex => 8,
            CheckKind::NumericEquals => 9,
            CheckKind::SentenceCount => 10,
            CheckKind::ToolUsed => 11,
            CheckKind::ToolNotUsed => 12,
            CheckKind::NoTool => 13,
            CheckKind::MinToolCalls => 14,
            CheckKind::MaxToolCalls => 15,
            CheckKind::CallCounts => 16,
            CheckKind::ToolSequence => 17,
            CheckKind::ToolArgsMatch => 18,
            CheckKind::Approvals => 19,
            CheckKind::Rubric => 20,
        }
    }

    #[test]
    fn all_lists_every_kind_once_in_order() {
        for (i, kind) in CheckKind::ALL.into_iter().enumerate() {
            assert_eq!(position(kind), i, "{kind}");
        }
    }

    #[test]
    fn every_kind_round_trips_through_serde_as_its_name() {
        for kind in CheckKind::ALL {
            let written = serde_json::to_value(kind).unwrap();
            assert_eq!(written, Value::String(kind.as_str().to_string()));
            assert_eq!(serde_json::from_value::<CheckKind>(written).unwrap(), kind);
            assert_eq!(CheckKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(CheckKind::parse("json-valid"), None);
        assert!(serde_json::from_value::<CheckKind>(json!("json-valid")).is_err());
    }

    /// The smallest check of each type, as a dataset writes it.
    fn minimal_spec(kind: CheckKind) -> Value {
        let fields = match kind {
            CheckKind::JsonValid | CheckKind::JsonSchema | CheckKind::NoTool => json!({}),
            CheckKind::JsonPathEquals => json!({"path": "a", "value": 1}),
            CheckKind::ToolUsed | CheckKind::ToolNotUsed => json!({"name": "search"}),
            CheckKind::Contains
            | CheckKind::Icontains
            | CheckKind::NotContains
            | CheckKind::Iregex => json!({"value": "x"}),
            CheckKind::Regex => json!({"pattern": "x"}),
            CheckKind::VerdictEquals => json!({"verdict": "GREEN"}),
            CheckKind::NumericEquals => json!({"value": 2.5}),
            CheckKind::MinToolCalls | CheckKind::MaxToolCalls => json!({"value": 2}),
            CheckKind::SentenceCount => json!({"max": 3}),
            CheckKind::CallCounts => json!({"counts": {"search": 1}}),
            CheckKind::ToolSequence => json!({"tools": ["search"]}),
            CheckKind::ToolArgsMatch => json!({"name": "search", "path": "query", "value": "x"}),
            CheckKind::Rubric => json!({"rubric": "cites a source"}),
            CheckKind::Approvals => json!({"outcome": "denied", "max": 0}),
        };
        let mut spec = json!({"type": kind.as_str()});
        if let (Some(spec), Value::Object(fields)) = (spec.as_object_mut(), fields) {
            spec.extend(fields);
        }
        spec
    }

    #[test]
    fn a_check_written_with_each_type_name_has_that_kind() {
        for kind in CheckKind::ALL {
            let spec = minimal_spec(kind);
            let check: Check = serde_json::from_value(spec.clone()).unwrap();
            assert_eq!(check.kind(), kind);
            assert_eq!(serde_json::to_value(&check).unwrap(), spec);
        }
    }
}
