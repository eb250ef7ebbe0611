//! The spans of a run, exported through `otel::layer` to OpenTelemetry's
//! in-memory exporter: GenAI names, kinds, attributes and parents, and
//! nothing of the prompt, the answer, the tool traffic or the key.
//!
//! A test binary of its own: `tracing` caches, per call site, whether any
//! subscriber wants it, and in the `it` binary other tests running without
//! a subscriber can leave that cache saying "no" for a span these tests
//! need (the judge's twin of this test lost every span that way in CI).
//! Here every test installs its own subscriber first.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use tracing_subscriber::layer::SubscriberExt;
use tribunal_runtime::BackendOptions;
use tribunal_runtime::otel::opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use tribunal_runtime::{Agent, BackendKind, Budget, ErrorCode, OutputChoice, ToolBox};
use tribunal_testkit::agents::{eiffel, landmark_schema};
use tribunal_testkit::wire::*;

const INPUT: &str = "Give me the landmark record of the Eiffel Tower.";

/// Runs `agent` with the OpenTelemetry layer as the thread's subscriber and
/// returns the spans it exported.
async fn exported(agent: &Agent) -> (tribunal_runtime::Run, Vec<SpanData>) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber =
        tracing_subscriber::registry().with(tribunal_runtime::otel::layer(provider.tracer("test")));
    let guard = tracing::subscriber::set_default(subscriber);
    let run = agent.run(INPUT).await;
    drop(guard);
    provider.force_flush().unwrap();
    (run, exporter.get_finished_spans().unwrap())
}

fn attributes(span: &SpanData) -> BTreeMap<String, String> {
    span.attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn pairs(list: &[(&str, &str)]) -> BTreeMap<String, String> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn a_run_exports_genai_spans_and_nothing_of_its_content() {
    let kind = BackendKind::OpenAiChat;
    let args = json!({"query": "Eiffel Tower"});
    let server = model_server(
        kind,
        vec![
            tool_call_turn(kind, "call_1", "search", args),
            text_turn(kind, &eiffel().to_string()),
        ],
    )
    .await;
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            output: OutputChoice::Native,
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let agent = Agent::new(
        provider(kind, &server, &options),
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_system(SEARCH_SYSTEM)
    .with_tools(ToolBox::new().with(Search))
    .with_max_output_tokens(512);
    let (run, spans) = exported(&agent).await;
    assert!(run.report.is_ok(), "{:?}", run.report);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(names.len(), 4, "{names:?}");

    let agent_span = named(&spans, "invoke_agent")[0];
    assert_eq!(agent_span.span_kind, SpanKind::Internal);
    assert_eq!(agent_span.status, Status::Ok);
    assert_eq!(
        attributes(agent_span),
        pairs(&[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.provider.name", "openai"),
            ("gen_ai.request.model", "test-model"),
            ("gen_ai.usage.input_tokens", "130"),
            ("gen_ai.usage.output_tokens", "30"),
            ("tribunal.turns", "2"),
            ("tribunal.repair_used", "false"),
        ])
    );
    let parent = agent_span.span_context.span_id();

    let chats = named(&spans, "chat test-model");
    assert_eq!(chats.len(), 2);
    let expected = [("1", "tool_calls", "50", "10"), ("2", "stop", "80", "20")];
    for (chat, (turn, finish, input, output)) in chats.iter().zip(expected) {
        assert_eq!(chat.span_kind, SpanKind::Client);
        assert_eq!(chat.parent_span_id, parent);
        assert_eq!(
            attributes(chat),
            pairs(&[
                ("gen_ai.operation.name", "chat"),
                ("gen_ai.provider.name", "openai"),
                ("gen_ai.request.model", "test-model"),
                ("gen_ai.request.max_tokens", "512"),
                ("gen_ai.response.finish_reasons", finish),
                ("gen_ai.usage.input_tokens", input),
                ("gen_ai.usage.output_tokens", output),
                ("tribunal.turn", turn),
                ("tribunal.request.purpose", "agent"),
            ])
        );
    }

    let tool = named(&spans, "execute_tool search")[0];
    assert_eq!(tool.parent_span_id, parent);
    assert_eq!(
        attributes(tool),
        pairs(&[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "search"),
            ("gen_ai.tool.call.id", "call_1"),
            ("gen_ai.tool.type", "function"),
        ])
    );

    // No span carries an event (a log line could hold a request body) or a
    // word of the prompt, the system prompt, the answer, the tool's
    // arguments or result, or the key.
    for span in &spans {
        assert!(span.events.is_empty(), "{}: {:?}", span.name, span.events);
        let shown = format!("{:?}", span.attributes);
        for secret in [INPUT, "landmarks", "Eiffel", "330", FAKE_KEY] {
            assert!(!shown.contains(secret), "{}: {shown}", span.name);
        }
    }
}

#[tokio::test]
async fn a_failed_run_exports_its_error_code() {
    let kind = BackendKind::Anthropic;
    let server = model_server(kind, vec![error_turn(kind, 400, "invalid_request_error")]).await;
    let agent = Agent::new(
        provider(kind, &server, &BackendOptions::default()),
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_budget(Budget::default());
    let (run, spans) = exported(&agent).await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::BackendError)
    );
    let agent_span = named(&spans, "invoke_agent")[0];
    assert!(matches!(agent_span.status, Status::Error { .. }));
    assert_eq!(attributes(agent_span)["error.type"], "backend_error");
    assert_eq!(attributes(agent_span)["gen_ai.provider.name"], "anthropic");
    let chat = named(&spans, "chat test-model")[0];
    assert!(matches!(chat.status, Status::Error { .. }));
    assert_eq!(attributes(chat)["error.type"], "http");
    // The driver's warning about the failed call is a log line, not a span
    // event: its text is the provider's.
    for span in &spans {
        assert!(span.events.is_empty(), "{}: {:?}", span.name, span.events);
    }
}

/// A tool whose calls are checked and run against a `{"path": string}` schema.
struct Files(&'static str);

impl tribunal_runtime::Tool for Files {
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "a file tool"
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}, "additionalProperties": false})
    }
    fn call(
        &self,
        _args: serde_json::Value,
    ) -> futures::future::BoxFuture<
        '_,
        Result<tribunal_runtime::ToolOutput, tribunal_runtime::ToolError>,
    > {
        Box::pin(async { Ok(tribunal_runtime::ToolOutput::Text("done".into())) })
    }
}

#[tokio::test]
async fn each_approval_is_a_span_with_its_outcome_and_nothing_of_the_call() {
    use tribunal_runtime::ScriptedApprover;
    use tribunal_runtime::{ApprovalPolicy, Decision, ToolPolicy};
    let backend = tribunal_testkit::agents::script(vec![
        tribunal_testkit::agents::calls(&[
            ("write", json!({"path": "secret-path-1"})),
            ("write", json!({"path": "secret-path-2"})),
            ("rm", json!({"path": "secret-path-3"})),
            ("write", json!({"path": "secret-path-4"})),
        ]),
        tribunal_testkit::agents::answer(&eiffel()),
    ]);
    let approver = ScriptedApprover::new([
        Decision::approve(),
        Decision::reject("secret-reason"),
        Decision::modify(json!({"path": "secret-path-5"})),
    ]);
    let policy = ApprovalPolicy::new(ToolPolicy::Auto)
        .with_tool("write", ToolPolicy::Ask)
        .with_tool("rm", ToolPolicy::Deny);
    let backend: Arc<dyn tribunal_runtime::Backend> = backend;
    let agent = Agent::new(backend, Arc::new(landmark_schema()))
        .unwrap()
        .with_tools(ToolBox::new().with(Files("write")).with(Files("rm")))
        .with_approval(policy, Arc::new(approver));
    let (run, spans) = exported(&agent).await;
    assert!(run.report.is_ok(), "{:?}", run.report);
    let parent = named(&spans, "invoke_agent")[0].span_context.span_id();
    let approvals: Vec<(String, String, bool)> = spans
        .iter()
        .filter(|s| s.name.starts_with("approve_tool"))
        .map(|s| {
            assert_eq!(s.parent_span_id, parent);
            let a = attributes(s);
            assert_eq!(a["gen_ai.operation.name"], "approve_tool");
            (
                a["gen_ai.tool.call.id"].clone(),
                a["tribunal.approval.outcome"].clone(),
                matches!(s.status, Status::Error { .. }),
            )
        })
        .collect();
    let expected = [
        ("c2", "denied", true),
        ("c0", "approved", false),
        ("c1", "rejected", true),
        ("c3", "modified", false),
    ];
    let expected: Vec<(String, String, bool)> = expected
        .iter()
        .map(|(id, outcome, error)| (id.to_string(), outcome.to_string(), *error))
        .collect();
    assert_eq!(approvals, expected);
    // The approved and the modified call ran.
    assert_eq!(named(&spans, "execute_tool write").len(), 2);
    for span in &spans {
        let shown = format!("{:?}", span.attributes);
        assert!(!shown.contains("secret"), "{}: {shown}", span.name);
    }
}
