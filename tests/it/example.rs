//! The README's embedding example compiles and runs: the model calls the
//! example's tool, reads its result and answers with the typed record.

#[path = "../../examples/embed.rs"]
mod embed;

use tribunal::runtime::Run;
use tribunal::runtime::conversation::Message;

/// The text of the first tool result the model was given.
fn first_tool_result(run: &Run) -> Option<&str> {
    run.conversation.messages.iter().find_map(|m| match m {
        Message::ToolResults { results } => results.first().map(|r| r.content.as_str()),
        _ => None,
    })
}

#[tokio::test]
async fn embedding_example_runs() {
    let (landmark, run) = embed::demo().await.unwrap();
    assert_eq!(
        landmark,
        embed::Landmark {
            name: "CN Tower".into(),
            year: 1976,
            height_m: 553.0
        }
    );
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    assert_eq!(run.report.turns, 2);
    assert!(!run.report.repair_used);
    let calls = &run.report.tool_calls;
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!((calls[0].name.as_str(), calls[0].ok), ("lookup", true));
    // The tool's own output went back to the model.
    assert_eq!(
        first_tool_result(&run),
        Some("CN Tower: completed 1976, 553 m")
    );
}

/// The same agent replaying a real model (llama.cpp, Qwen2.5-Coder-0.5B):
/// the typed tool was offered in its compiled form (the optional `only` is
/// required and nullable on the wire), the model called it in that form, and
/// the call reached the closure decoded.
#[tokio::test]
async fn embedding_example_replays_a_real_model() {
    use tribunal::runtime::{BackendKind, BackendOptions, connect};
    let cassette = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cassettes/embed.qwen.jsonl"
    );
    let options = BackendOptions {
        replay: Some(cassette.into()),
        ..BackendOptions::default()
    };
    let backend = connect(BackendKind::OpenAiChat, "qwen", &options).unwrap();
    let (landmark, run) = embed::demo_on(backend).await.unwrap();
    assert_eq!(landmark.name, "CN Tower");
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    let call = &run.report.tool_calls[0];
    assert_eq!((call.name.as_str(), call.ok), ("lookup", true));
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
    assert!(arguments.get("only").is_some(), "{arguments}");
    assert_eq!(
        first_tool_result(&run),
        Some("CN Tower: completed 1976, 553 m")
    );
}
