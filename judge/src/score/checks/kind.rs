//! What is said of every [`CheckKind`] alike: the docs' table, the
//! lookup by name, a list of names. The kinds and their facts are declared
//! with the checks (the `checks!` declaration of the parent module).

use super::CheckKind;
use std::fmt;

impl CheckKind {
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
            CheckKind::CommandPasses => json!({"command": ["true"]}),
            CheckKind::FileJson => json!({"path": "a.json", "pointer": "/a", "value": 1}),
            CheckKind::FileContains => json!({"path": "a.txt", "value": "x"}),
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
