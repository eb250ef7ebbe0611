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
}

impl CheckKind {
    /// Every check type, in documentation order.
    pub const ALL: [CheckKind; 8] = [
        CheckKind::JsonValid,
        CheckKind::JsonSchema,
        CheckKind::JsonPathEquals,
        CheckKind::ToolUsed,
        CheckKind::Contains,
        CheckKind::NotContains,
        CheckKind::Regex,
        CheckKind::VerdictEquals,
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
        }
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
    use crate::checks::Check;
    use serde_json::{Value, json};

    /// The position of `kind` in [`CheckKind::ALL`]. A match without a
    /// wildcard: a new variant does not compile until it is listed here,
    /// and the test below then fails until it is in `ALL` too.
    fn position(kind: CheckKind) -> usize {
        match kind {
            CheckKind::JsonValid => 0,
            CheckKind::JsonSchema => 1,
            CheckKind::JsonPathEquals => 2,
            CheckKind::ToolUsed => 3,
            CheckKind::Contains => 4,
            CheckKind::NotContains => 5,
            CheckKind::Regex => 6,
            CheckKind::VerdictEquals => 7,
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
            CheckKind::JsonValid | CheckKind::JsonSchema => json!({}),
            CheckKind::JsonPathEquals => json!({"path": "a", "value": 1}),
            CheckKind::ToolUsed => json!({"name": "search"}),
            CheckKind::Contains | CheckKind::NotContains => json!({"value": "x"}),
            CheckKind::Regex => json!({"pattern": "x"}),
            CheckKind::VerdictEquals => json!({"verdict": "GREEN"}),
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
