//! The README's embedding example compiles and runs: the model calls the
//! example's tool, reads its result and answers with the typed record.

#[path = "../../examples/embed.rs"]
mod embed;

use tribunal::runtime::conversation::Message;

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
    let result = run.conversation.messages.iter().find_map(|m| match m {
        Message::ToolResults { results } => results.first(),
        _ => None,
    });
    assert_eq!(
        result.map(|r| r.content.as_str()),
        Some("CN Tower: completed 1976, 553 m")
    );
}
