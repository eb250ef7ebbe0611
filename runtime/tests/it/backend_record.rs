//! Recording and replay: a live run recorded to a cassette replays without
//! keys or network; unknown requests fail clearly; and the API key appears in
//! no tracing output and no cassette.

use serde_json::json;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tribunal_runtime::BackendOptions;
use tribunal_runtime::{Agent, Backend, BackendKind, Conversation, connect_with_env};
use tribunal_runtime::{BackendErrorKind, ModelRequest, OutputFormat};
use tribunal_testkit::agents::eiffel;
use tribunal_testkit::wire::*;

fn agent(backend: Arc<dyn tribunal_runtime::Backend>) -> Agent {
    landmark_agent(backend, "You answer questions about landmarks.")
}

fn scenario(kind: BackendKind) -> Vec<wiremock::ResponseTemplate> {
    vec![
        tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
        error_turn(kind, 429, "rate_limit_error").insert_header("retry-after", "0"),
        text_turn(kind, &json!({"name": "Eiffel Tower"}).to_string()),
        text_turn(kind, &eiffel().to_string()),
    ]
}

#[tokio::test]
async fn a_recorded_run_replays_without_keys() {
    for kind in ALL {
        let dir = tempfile::tempdir().unwrap();
        let cassette = dir.path().join("runs").join("eiffel.jsonl");
        let server = model_server(kind, scenario(kind)).await;
        let env = env_for(kind, &server);
        let options = BackendOptions {
            record: Some(cassette.clone()),
            ..BackendOptions::default()
        };
        let live = connect_with_env(kind, "test-model", &options, &env).unwrap();
        let recorded = agent(live).run("Eiffel Tower?").await;
        assert_eq!(recorded.report.outcome.value(), Some(&eiffel()), "{kind}");
        // Header plus one line per loop request; the retried 429 is not there.
        let text = std::fs::read_to_string(&cassette).unwrap();
        assert_eq!(text.lines().count(), 4, "{kind}: {text}");

        let options = BackendOptions {
            replay: Some(cassette.clone()),
            ..BackendOptions::default()
        };
        let no_env = |_: &str| None;
        let replay = connect_with_env(kind, "test-model", &options, &no_env).unwrap();
        assert_eq!(replay.name(), kind.as_str());
        let replayed = agent(replay.clone()).run("Eiffel Tower?").await;
        assert_eq!(replayed.report.outcome, recorded.report.outcome);
        assert_eq!(replayed.report.usage, recorded.report.usage);
        assert_eq!(replayed.report.repair_used, recorded.report.repair_used);

        // A request the cassette never saw fails clearly.
        let err = replay
            .complete(&ModelRequest {
                conversation: Conversation::new(None, "something else").into(),
                tool_choice: Default::default(),
                tools: Vec::new().into(),
                output: OutputFormat::Text,
                max_output_tokens: None,
            })
            .await
            .unwrap_err();
        assert_eq!(err.kind, BackendErrorKind::Script);
        assert!(err.message.contains("has no answer"), "{}", err.message);

        // A cassette of another model is refused.
        let err = connect_with_env(kind, "other-model", &options, &no_env)
            .err()
            .unwrap();
        assert_eq!(err.kind, BackendErrorKind::Config);
    }
}

static CAPTURE: std::sync::OnceLock<Capture> = std::sync::OnceLock::new();

/// A subscriber that writes every span and event, with all fields, to a buffer.
#[derive(Clone, Default)]
pub(crate) struct Capture {
    pub(crate) out: Arc<Mutex<String>>,
    next_id: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        let _ = write!(self.0, " {}={}", field.name(), value);
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut out = self.out.lock().unwrap();
        let _ = write!(out, "span {}", span.metadata().name());
        span.record(&mut Fields(&mut out));
        out.push('\n');
        tracing::span::Id::from_u64(self.next_id.fetch_add(1, Ordering::SeqCst) + 1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut out = self.out.lock().unwrap();
        values.record(&mut Fields(&mut out));
        out.push('\n');
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut out = self.out.lock().unwrap();
        let _ = write!(
            out,
            "{} {}",
            event.metadata().level(),
            event.metadata().target()
        );
        event.record(&mut Fields(&mut out));
        out.push('\n');
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn the_key_appears_in_no_log_and_no_cassette() {
    // A process-wide subscriber: a thread-scoped one (`set_default`) misses
    // callsites whose interest other test threads cached first. It captures
    // the other tests' output too, which must not hold the key either.
    let capture = CAPTURE.get_or_init(Capture::default).clone();
    let installed = tracing::subscriber::set_global_default(capture.clone()).is_ok();
    assert!(installed, "no other test installs a global subscriber");
    let dir = tempfile::tempdir().unwrap();
    for kind in ALL {
        let cassette = dir.path().join(format!("{kind}.jsonl"));
        let server = model_server(kind, scenario(kind)).await;
        let env = env_for(kind, &server);
        let options = BackendOptions {
            record: Some(cassette),
            ..BackendOptions::default()
        };
        let backend = connect_with_env(kind, "test-model", &options, &env).unwrap();
        let run = agent(backend.clone()).run("Eiffel Tower?").await;
        assert!(run.report.outcome.value().is_some(), "{kind}");
        tracing::info!(backend = ?backend, "done");

        // An auth failure whose body echoes the key.
        let echo = wiremock::ResponseTemplate::new(401).set_body_json(json!({
            "error": {"message": format!("Incorrect API key provided: {FAKE_KEY}"),
                      "type": "authentication_error"}}));
        let server = model_server(kind, vec![echo]).await;
        let env = env_for(kind, &server);
        let cassette = dir.path().join(format!("{kind}-401.jsonl"));
        let options = BackendOptions {
            record: Some(cassette),
            ..BackendOptions::default()
        };
        let backend = connect_with_env(kind, "test-model", &options, &env).unwrap();
        let run = agent(backend).run("Eiffel Tower?").await;
        assert!(run.report.outcome.value().is_none());
        let err = provider(kind, &server, &BackendOptions::default())
            .complete(&ModelRequest {
                conversation: Conversation::new(None, "hi").into(),
                tool_choice: Default::default(),
                tools: Vec::new().into(),
                output: OutputFormat::Text,
                max_output_tokens: None,
            })
            .await
            .unwrap_err();
        tracing::error!(error = %err, debug = ?err, "failed");
        assert!(err.message.contains("[redacted]"), "{}", err.message);
    }
    let logs = capture.out.lock().unwrap().clone();
    assert!(logs.contains("retrying"), "the capture works: {logs}");
    assert!(logs.contains("request body"), "bodies are traced: {logs}");
    let mut files = String::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        files.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    assert!(files.lines().count() >= 9);
    for secret in [FAKE_KEY, "SECRET"] {
        assert!(!logs.contains(secret), "the key leaked into tracing output");
        assert!(!files.contains(secret), "the key leaked into a cassette");
    }
}

/// A committed cassette (schema in the prompt, so the key does not depend on
/// the schema compiler) replays through the whole loop without keys.
#[tokio::test]
async fn a_fixture_cassette_replays_through_the_loop() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/providers/openai_chat_landmark.jsonl"
    );
    let replay = Arc::new(tribunal_runtime::Replay::from_file(path).unwrap());
    assert_eq!(
        replay.output_plan().target,
        tribunal_runtime::SchemaTarget::Plain
    );
    let run = agent(replay.clone()).run("Eiffel Tower?").await;
    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{:?}",
        run.report
    );
    assert_eq!(run.report.tool_calls.len(), 1);
    assert!(!run.report.repair_used);
    assert_eq!(replay.remaining(), 0);

    let options = BackendOptions {
        replay: Some(path.into()),
        ..BackendOptions::default()
    };
    let no_env = |_: &str| None;
    let backend =
        connect_with_env(BackendKind::OpenAiChat, "fixture-model", &options, &no_env).unwrap();
    let run = agent(backend).run("Eiffel Tower?").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
}

/// A model call cut by the run deadline is in the cassette as `cut`, and its
/// replay ends the run as `deadline_exceeded` at once, as the recorded run
/// ended — not as a request the cassette has no answer for.
#[tokio::test(start_paused = true)]
async fn a_call_cut_by_the_deadline_replays_as_deadline_exceeded() {
    use std::time::Duration;
    use tribunal_runtime::{Budget, ErrorCode};
    use tribunal_runtime::{Recording, Replay};
    use tribunal_testkit::agents::{SlowOnCall, script, text};

    let with_deadline = |backend: Arc<dyn Backend>| {
        agent(backend).with_budget(Budget {
            deadline: Some(Duration::from_secs(60)),
            ..Budget::default()
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cut.jsonl");
    // An invalid answer, then a repair the model is still writing an hour on.
    let slow = SlowOnCall::new(
        script(vec![text("not json"), text(&eiffel().to_string())]),
        2,
        Duration::from_secs(3600),
    );
    let recording = Arc::new(Recording::new(slow, &cassette).unwrap());
    let started = tokio::time::Instant::now();
    let recorded = with_deadline(recording.clone()).run("Eiffel Tower?").await;
    assert_eq!(
        recorded.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    assert!(recorded.report.repair_used);
    assert_eq!(started.elapsed(), Duration::from_secs(60));
    assert_eq!(recording.inner().calls(), 2);

    let written = std::fs::read_to_string(&cassette).unwrap();
    let lines: Vec<serde_json::Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{written}");
    assert_eq!(lines[0]["version"], 2);
    assert!(lines[1]["outcome"]["turn"].is_object(), "{written}");
    // The cut request: the repair, with no answer, and nothing else.
    let cut = lines[2].as_object().unwrap();
    assert_eq!(
        cut.keys().collect::<Vec<_>>(),
        ["type", "key", "request", "outcome"]
    );
    assert_eq!(cut["type"], "exchange");
    assert_eq!(cut["outcome"], "cut");
    assert_eq!(cut["request"]["messages"].as_array().unwrap().len(), 3);

    let replay = Arc::new(Replay::from_file(&cassette).unwrap());
    let started = tokio::time::Instant::now();
    let replayed = with_deadline(replay.clone()).run("Eiffel Tower?").await;
    assert_eq!(replayed.report.outcome, recorded.report.outcome);
    assert_eq!(replayed.report.repair_used, recorded.report.repair_used);
    assert_eq!(replayed.report.backend_failure, None);
    assert_eq!(
        started.elapsed(),
        Duration::ZERO,
        "no wait for the deadline"
    );
    assert_eq!(replay.remaining(), 0);
}
