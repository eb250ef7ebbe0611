use super::*;
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};

/// A tool that counts its calls and answers with the count and the sum.
struct Adder(AtomicU32);

impl Tool for Adder {
    fn name(&self) -> &str {
        "add"
    }
    fn description(&self) -> &str {
        "Adds a and b."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}})
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let n = self.0.fetch_add(1, Ordering::Relaxed) + 1;
        Box::pin(async move {
            let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
            match (a, b) {
                (Some(a), Some(b)) => Ok(ToolOutput::Json(json!({"sum": a + b, "call": n}))),
                _ => Err(ToolError::new("a and b must be integers")),
            }
        })
    }
}

#[tokio::test]
async fn recorded_calls_replay_by_their_arguments_without_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.jsonl");
    let adder = Arc::new(Adder(AtomicU32::new(0)));
    let recorder = ToolRecorder::create(&path).unwrap();
    let recorded = recorder.record(adder.clone()).unwrap();
    let first = recorded.call(json!({"a": 1, "b": 2})).await.unwrap();
    let again = recorded.call(json!({"b": 2, "a": 1})).await.unwrap();
    let other = recorded.call(json!({"a": 5, "b": 5})).await.unwrap();
    let failed = recorded.call(json!({"a": "x"})).await.unwrap_err();
    assert_eq!(adder.0.load(Ordering::Relaxed), 4);

    let tools = replay_tools(&path).unwrap();
    assert_eq!(tools.len(), 1);
    let replayed = &tools[0];
    assert_eq!(replayed.name(), "add");
    assert_eq!(replayed.description(), "Adds a and b.");
    assert_eq!(replayed.parameters(), adder.parameters());
    // The n-th call with the same arguments gets the n-th recorded result,
    // whatever the key order.
    assert_eq!(replayed.call(json!({"b": 2, "a": 1})).await.unwrap(), first);
    assert_eq!(replayed.call(json!({"a": 1, "b": 2})).await.unwrap(), again);
    assert_eq!(replayed.call(json!({"a": 5, "b": 5})).await.unwrap(), other);
    assert_eq!(replayed.call(json!({"a": "x"})).await.unwrap_err(), failed);
    let unrecorded = replayed.call(json!({"a": 1, "b": 2})).await.unwrap_err();
    assert!(
        unrecorded.message.starts_with("no recorded result"),
        "{unrecorded:?}"
    );
    // The tool itself was not called again.
    assert_eq!(adder.0.load(Ordering::Relaxed), 4);
}

#[test]
fn hostile_cassettes_are_errors_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.jsonl");
    for (text, says) in [
        ("", "it is empty"),
        ("garbage\n", "line 1: not a tool cassette header"),
        ("{\"version\": 9, \"kind\": \"tools\"}\n", "version 9"),
        (
            "{\"version\": 1, \"kind\": \"backend\"}\n",
            "\"backend\" cassette",
        ),
        (
            "{\"version\": 1, \"kind\": \"tools\"}\n{\"tool\": {\"name\": \"x\"}}\n",
            "line 2:",
        ),
        (
            "{\"version\": 1, \"kind\": \"tools\"}\n\n[1, 2]\n",
            "line 3:",
        ),
    ] {
        std::fs::write(&path, text).unwrap();
        let error = replay_tools(&path).err().unwrap();
        assert!(error.to_string().contains(says), "{text:?}: {error}");
    }
    let missing = replay_tools(&dir.path().join("none.jsonl")).err().unwrap();
    assert!(missing.to_string().contains("cannot read it"), "{missing}");
}
