//! Tool calls a model wrote as text.
//!
//! A small local model asked for a tool call often writes the call into its
//! text instead — `{"name": "list_files", "arguments": {}}` and then prose, a
//! fenced ```` ```json ```` block, or `<tool_call>{…}</tool_call>` — and a
//! server that did not recognise the form returns no tool call. [`read`]
//! finds such calls: every JSON object in the text with a string `name` that
//! names a tool the turn offered and an `arguments` (or `parameters`) object,
//! or a string holding one. The fences and tags around an object need no
//! parsing of their own: the object inside is found either way. The same call
//! written twice (a model that quotes its call in its prose) is read once.
//!
//! The machine reads text this way only on an agent turn that returned no
//! tool call, when the output plan says so
//! ([`OutputPlan::read_text_calls`](crate::output::OutputPlan::read_text_calls));
//! the calls then run as any call does, their arguments checked by the tool.

use crate::json::{ParseLimits, parse_strict};
use serde::de::IgnoredAny;
use serde_json::Value;

/// At most this many `{` are tried as the start of an object: a text is
/// read in time linear in its length times this bound, whatever it holds.
const MAX_STARTS: usize = 64;

/// One call found in a text: the tool's name and its arguments as compact
/// JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextCall {
    pub name: String,
    pub arguments: String,
}

/// The calls written in `text` of tools named in `offered`, in the order
/// written, each once.
pub(crate) fn read(text: &str, offered: impl Fn(&str) -> bool) -> Vec<TextCall> {
    let mut calls: Vec<TextCall> = Vec::new();
    let mut from = 0;
    let mut starts = 0;
    while let Some(offset) = text.get(from..).and_then(|rest| rest.find('{')) {
        let start = from + offset;
        starts += 1;
        if starts > MAX_STARTS {
            break;
        }
        // serde_json finds where the object ends (its recursion limit on:
        // no stack overflow); the strict parser then reads it as any answer
        // is read (a duplicate key is no call).
        let mut values =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                from = start + values.byte_offset();
                if let Ok(value) = parse_strict(&text[start..from], &ParseLimits::default())
                    && let Some(call) = as_call(value, &offered)
                    && !calls.contains(&call)
                {
                    calls.push(call);
                }
            }
            _ => from = start + 1,
        }
    }
    calls
}

/// `value` as a call of an offered tool, if it is one.
fn as_call(value: Value, offered: &impl Fn(&str) -> bool) -> Option<TextCall> {
    let Value::Object(mut object) = value else {
        return None;
    };
    let name = match object.get("name") {
        Some(Value::String(name)) if offered(name) => name.clone(),
        _ => return None,
    };
    let arguments = object
        .remove("arguments")
        .or_else(|| object.remove("parameters"))?;
    let arguments = match arguments {
        Value::Object(map) => Value::Object(map),
        // Some models write the arguments as a JSON string, as the wire
        // format carries them.
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => return None,
        },
        _ => return None,
    };
    Some(TextCall {
        name,
        arguments: arguments.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(name: &str) -> bool {
        matches!(name, "list_files" | "read_file" | "grep" | "final_answer")
    }

    fn names(text: &str) -> Vec<(String, String)> {
        read(text, tools)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect()
    }

    #[test]
    fn a_bare_object_then_prose_as_the_05b_writes_it() {
        // From the code_review cassette (a 0.5B turn under tool_choice
        // "required" that the server returned as text).
        let text = "{\"name\": \"list_files\", \"arguments\": {}}\n\nThe code has been called but not the tool. The answer is {\"name\": \"list_files\", \"arguments\": {}}. The change does not meet";
        assert_eq!(names(text), [("list_files".into(), "{}".into())]);
    }

    #[test]
    fn fenced_and_tagged_forms_are_read() {
        let fenced = "I will look.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/lib.rs\"}}\n```";
        assert_eq!(
            names(fenced),
            [("read_file".into(), r#"{"path":"src/lib.rs"}"#.into())]
        );
        let tagged = "<tool_call>\n{\"name\": \"grep\", \"arguments\": \"{\\\"pattern\\\": \\\"fn main\\\"}\"}\n</tool_call>";
        assert_eq!(
            names(tagged),
            [("grep".into(), r#"{"pattern":"fn main"}"#.into())]
        );
        let parameters = r#"{"name": "grep", "parameters": {"pattern": "x"}}"#;
        assert_eq!(
            names(parameters),
            [("grep".into(), r#"{"pattern":"x"}"#.into())]
        );
    }

    #[test]
    fn two_different_calls_are_both_read_in_order() {
        let text = r#"{"name": "list_files", "arguments": {}} then {"name": "read_file", "arguments": {"path": "a"}}"#;
        let read = names(text);
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].0, "list_files");
        assert_eq!(read[1].0, "read_file");
    }

    #[test]
    fn what_is_not_a_call_of_an_offered_tool_is_not_read() {
        // A tool the turn did not offer.
        assert!(names(r#"{"name": "rm", "arguments": {"path": "/"}}"#).is_empty());
        // A record that has a `name` (the landmark record) but no arguments.
        assert!(names(r#"{"name": "list_files", "year": 1889}"#).is_empty());
        // A duplicate key makes the call ambiguous.
        assert!(names(r#"{"name": "grep", "name": "rm", "arguments": {}}"#).is_empty());
        // Arguments that are no object.
        assert!(names(r#"{"name": "grep", "arguments": [1, 2]}"#).is_empty());
        assert!(names(r#"{"name": "grep", "arguments": "not json"}"#).is_empty());
        // Prose, broken JSON, an unclosed object.
        assert!(names("GREEN\n\nThe change makes the parser total.").is_empty());
        assert!(names(r#"{"name": "grep", "arguments": {"pattern": "#).is_empty());
    }

    #[test]
    fn hostile_text_is_read_in_bounded_time_and_depth() {
        // Deep nesting: serde_json's recursion limit refuses it, no overflow.
        let deep = format!("{}{}", "{\"a\":".repeat(100_000), "1");
        assert!(names(&deep).is_empty());
        // Many unclosed braces: only the first MAX_STARTS are tried.
        let braces = "{ ".repeat(200_000);
        assert!(names(&braces).is_empty());
    }
}
