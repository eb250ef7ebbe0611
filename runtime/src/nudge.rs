//! What the model reads when it wrote text on a turn that required a tool
//! call ([`MachineConfig::require_tool_first`](crate::machine::MachineConfig)):
//! the tools it may call, by name, and one call written out from a tool's
//! own parameter schema (the first tool whose schema gives an example value,
//! else the first tool).
//!
//! Measured on llama.cpp (code_review, a 1.5B model): after a nudge that
//! named no tool, the model answered "I do not have a specific tool to call
//! first" and wrote newlines until the deadline.

use crate::conversation::ToolSpec;
use crate::text::{Limit, clip};
use serde_json::{Map, Value};

/// Most tools named in the nudge; more are summed up as "and N more".
const MAX_NAMED: usize = 8;

/// Longest example argument text, in characters.
const MAX_EXAMPLE_CHARS: usize = 200;

/// The nudge after text on a tool-first turn, naming `tools` (the user's
/// tools offered on that turn) and showing one call: of the first tool
/// whose required parameters carry an `examples` value, else of the first.
pub fn tool_first_message(tools: &[ToolSpec]) -> String {
    let mut out =
        String::from("No tool has been called yet, and this task needs one: call a tool first");
    if let Some(first) = tools.first() {
        let mut names: Vec<&str> = tools
            .iter()
            .take(MAX_NAMED)
            .map(|t| t.name.as_str())
            .collect();
        let more = tools.len().saturating_sub(MAX_NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let list = match names.len() {
            1 => format!("the tool offered is {}", names.remove(0)),
            _ => format!("the tools offered are {}{more}", names.join(", ")),
        };
        // A tool whose author gave an example value (a path that exists)
        // makes the more useful call to copy; else the first tool.
        let shown = tools
            .iter()
            .find(|t| has_examples(&t.parameters))
            .unwrap_or(first);
        let example = example_arguments(&shown.parameters).to_string();
        out.push_str(&format!(
            " ({list}). For example, call {} with the arguments {}",
            shown.name,
            clip(&example, Limit::Chars(MAX_EXAMPLE_CHARS))
        ));
    }
    out.push_str(". Your answer must come from what the tools return.");
    out
}

/// Whether a required property of the object schema `schema` carries an
/// `examples` value.
fn has_examples(schema: &Value) -> bool {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|name| {
            properties
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("examples"))
                .and_then(|e| e.get(0))
                .is_some()
        })
}

/// Arguments that show a call's shape: each required property of an object
/// schema with an example value (its `examples`, `default`, `const` or
/// first `enum` value, else a placeholder of its type); no other property.
pub fn example_arguments(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut args = Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        args.insert(name.to_string(), example_value(name, property));
    }
    Value::Object(args)
}

fn example_value(name: &str, schema: &Value) -> Value {
    let given = schema
        .get("examples")
        .and_then(|e| e.get(0))
        .or_else(|| schema.get("default"))
        .or_else(|| schema.get("const"))
        .or_else(|| schema.get("enum").and_then(|e| e.get(0)));
    if let Some(value) = given {
        return value.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::Array(types)) => types.iter().find(|t| *t != "null"),
        other => other,
    };
    match ty.and_then(Value::as_str) {
        Some("integer") | Some("number") => Value::from(1),
        Some("boolean") => Value::Bool(true),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(Map::new()),
        _ => Value::String(format!("<{name}>")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str, parameters: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters,
        }
    }

    #[test]
    fn a_tool_with_an_example_value_is_the_call_shown() {
        let tools = [
            spec("list_files", json!({"type": "object", "properties": {}})),
            spec(
                "read_file",
                json!({"type": "object", "properties": {
                    "path": {"type": "string", "examples": ["live/summarize.py"]}
                }, "required": ["path"]}),
            ),
        ];
        assert!(
            tool_first_message(&tools).contains(
                "(the tools offered are list_files, read_file). For example, call read_file with the arguments {\"path\":\"live/summarize.py\"}."
            ),
            "{}",
            tool_first_message(&tools)
        );
    }

    #[test]
    fn the_nudge_names_the_tools_and_writes_out_a_call_of_the_first() {
        let tools = [
            spec(
                "read_file",
                json!({"type": "object", "properties": {
                    "path": {"type": "string"}, "start_line": {"type": "integer"}
                }, "required": ["path"]}),
            ),
            spec("list_files", json!({"type": "object", "properties": {}})),
        ];
        assert_eq!(
            tool_first_message(&tools),
            "No tool has been called yet, and this task needs one: call a tool first (the tools \
             offered are read_file, list_files). For example, call read_file with the arguments \
             {\"path\":\"<path>\"}. Your answer must come from what the tools return."
        );
        assert_eq!(
            tool_first_message(&tools[1..]),
            "No tool has been called yet, and this task needs one: call a tool first (the tool \
             offered is list_files). For example, call list_files with the arguments {}. Your \
             answer must come from what the tools return."
        );
        assert_eq!(
            tool_first_message(&[]),
            "No tool has been called yet, and this task needs one: call a tool first. Your answer \
             must come from what the tools return."
        );
    }

    #[test]
    fn example_values_come_from_the_schema_first() {
        let schema = json!({"type": "object", "properties": {
            "q": {"type": "string", "examples": ["Eiffel Tower height"]},
            "k": {"type": "integer", "default": 3},
            "mode": {"enum": ["fast", "slow"]},
            "n": {"type": ["integer", "null"]},
            "flag": {"type": "boolean"},
            "missing": true
        }, "required": ["q", "k", "mode", "n", "flag", "absent", 7]});
        assert_eq!(
            example_arguments(&schema),
            json!({"q": "Eiffel Tower height", "k": 3, "mode": "fast", "n": 1, "flag": true,
                   "absent": "<absent>"})
        );
        // Not an object schema, or a malformed one: no arguments.
        assert_eq!(example_arguments(&json!(true)), json!({}));
        assert_eq!(example_arguments(&json!({"required": "q"})), json!({}));
    }

    #[test]
    fn many_tools_are_summed_up_and_a_long_example_is_clipped() {
        let tools: Vec<ToolSpec> = (0..10)
            .map(|i| {
                spec(
                    &format!("t{i}"),
                    json!({"properties": {"x": {"const": "y".repeat(500)}}, "required": ["x"]}),
                )
            })
            .collect();
        let message = tool_first_message(&tools);
        assert!(
            message.contains("t0, t1, t2, t3, t4, t5, t6, t7 and 2 more"),
            "{message}"
        );
        assert!(message.len() < 600, "{message}");
    }
}
