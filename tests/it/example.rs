//! The README's embedding example compiles and runs: the model calls the
//! example's tool, reads its result and answers with the typed record.

#[path = "../../examples/embed.rs"]
mod embed;

#[path = "../../examples/mcp.rs"]
mod mcp_example;

use tribunal::runtime::Message;
use tribunal::runtime::Run;

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

/// The README's streamed run: the same run as `demo`, and the deltas add up
/// to what the model wrote (the tool call's arguments, then the answer).
#[tokio::test]
async fn streamed_embedding_example_runs() {
    let (landmark, run, streamed) = embed::stream_demo_on(embed::scripted().unwrap())
        .await
        .unwrap();
    let (whole_landmark, whole) = embed::demo().await.unwrap();
    assert_eq!(landmark, whole_landmark);
    assert_eq!(
        crate::without_timings(serde_json::to_value(&run.report).unwrap()),
        crate::without_timings(serde_json::to_value(&whole.report).unwrap())
    );
    assert_eq!(
        streamed,
        r#"{"name":"CN Tower"}{"name":"CN Tower","year":1976,"height_m":553.0}"#
    );
}

/// One recorded exchange of `embed.stream.qwen.jsonl` (see `live/sse_proxy.py`).
struct Recorded {
    request: serde_json::Value,
    sse: String,
    whole: serde_json::Value,
}

fn recorded_streams() -> Vec<Recorded> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cassettes/embed.stream.qwen.jsonl"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            Recorded {
                request: v["request"].take(),
                sse: v["sse"].as_str().unwrap().to_string(),
                whole: v["whole"].take(),
            }
        })
        .collect()
}

fn chat_backend(server: &wiremock::MockServer) -> std::sync::Arc<dyn tribunal::runtime::Backend> {
    use tribunal::runtime::{BackendKind, BackendOptions, connect_with_env};
    let base = format!("{}/v1", server.uri());
    let env = move |name: &str| match name {
        "OPENAI_API_KEY" => Some("sk-local".to_string()),
        "OPENAI_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    connect_with_env(
        BackendKind::OpenAiChat,
        "qwen",
        &BackendOptions::default(),
        &env,
    )
    .unwrap()
}

/// A real model's streams (llama.cpp, Qwen2.5-Coder-0.5B, recorded through
/// `live/sse_proxy.py`) replayed byte for byte: llama.cpp's chunks (a role
/// chunk with `content: null`, arguments in many pieces, `timings`, usage
/// on a last chunk without choices, `[DONE]`) fold into the run the
/// example expects, with the usage of the last chunks; our requests are the
/// recorded ones. The same exchanges answered whole give the same run, as
/// far as the model answered the same (see LIVE.md: even at temperature 0
/// llama.cpp worded the first call's arguments differently unstreamed).
#[tokio::test]
async fn streamed_embedding_example_replays_a_real_models_stream() {
    let recorded = recorded_streams();
    assert_eq!(recorded.len(), 2);
    let sse = |r: &Recorded| {
        wiremock::ResponseTemplate::new(200).set_body_raw(r.sse.clone(), "text/event-stream")
    };
    let server =
        crate::stand_in::in_order("/v1/chat/completions", recorded.iter().map(sse).collect()).await;
    let (landmark, run, streamed) = embed::stream_demo_on(chat_backend(&server)).await.unwrap();
    assert_eq!(landmark.name, "CN Tower");
    assert_eq!((landmark.year, landmark.height_m), (1976, 553.0));
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    assert_eq!(run.report.turns, 2);
    // 288 + 31 and 527 + 40 tokens: the usage chunks after `finish_reason`
    // (the first turn offers only the lookup tool: a tool is required first).
    assert_eq!(
        (
            run.report.usage.input_tokens,
            run.report.usage.output_tokens
        ),
        (288 + 527, 31 + 40)
    );
    assert_eq!(
        streamed,
        r#"{"name": "CN Tower", "only": ["year", "height"]}{"name": "CN Tower", "year": 1976, "height_m": 553}"#
    );
    let sent = server.received_requests().await.unwrap();
    for (request, recorded) in sent.iter().zip(&recorded) {
        let mut body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        body["temperature"] = serde_json::json!(0); // the proxy's --greedy
        assert_eq!(body, recorded.request);
    }

    let whole = wiremock::ResponseTemplate::new(200);
    let server = crate::stand_in::in_order(
        "/v1/chat/completions",
        recorded
            .iter()
            .map(|r| whole.clone().set_body_json(r.whole.clone()))
            .collect(),
    )
    .await;
    let (whole_landmark, whole_run) = embed::demo_on(chat_backend(&server)).await.unwrap();
    assert_eq!(whole_landmark, landmark);
    assert_eq!(whole_run.report.turns, run.report.turns);
    let names = |r: &tribunal::runtime::RunReport| -> Vec<(String, bool)> {
        r.tool_calls
            .iter()
            .map(|c| (c.name.clone(), c.ok))
            .collect()
    };
    assert_eq!(names(&whole_run.report), names(&run.report));
}

/// The README's MCP example against a real MCP server process (the tools
/// crate's fixture, built here as `tribunal-mcp-fixture`): the scripted
/// model's `add` call went to the server and its result came back.
#[tokio::test]
async fn mcp_example_runs_against_a_real_server() {
    let run = mcp_example::demo(env!("CARGO_BIN_EXE_tribunal-mcp-fixture"), &[])
        .await
        .unwrap();
    assert_eq!(
        run.report.outcome.value(),
        Some(&serde_json::json!({"sum": 5555}))
    );
    let call = &run.report.tool_calls[0];
    assert_eq!((call.name.as_str(), call.ok), ("add", true));
    assert_eq!(first_tool_result(&run), Some(r#"{"sum":5555}"#));
}
