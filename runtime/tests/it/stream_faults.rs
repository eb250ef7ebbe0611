//! The streamed path against a fault-injecting stand-in of each API
//! ([`tribunal_testkit::faulty`]), which streams the SDKs' own event shapes
//! and drops, stalls, trickles or garbles them on cue: every fault ends in
//! its expected outcome — asked again then PASS, or one clear error with its
//! stage and a detail — within the run deadline plus the measured overshoot
//! (printed: `cargo test -p tribunal-runtime --test it stream_faults --
//! --nocapture`). RELIABILITY.md holds the table.

use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::{
    Agent, Backend, BackendKind, Budget, ErrorCode, OutputChoice, RunReport, connect_with_env,
};
use tribunal_runtime::{BackendErrorKind, BackendOptions, Stage, Timeouts};
use tribunal_testkit::agents::{eiffel, landmark_schema};
use tribunal_testkit::faulty::{Fault, FaultyServer, html_page};
use tribunal_testkit::wire::FAKE_KEY;

const ALL: [BackendKind; 3] = BackendKind::ALL;
const DEADLINE: Duration = Duration::from_secs(8);
/// Far wider than any overshoot measured (milliseconds): it only has to
/// tell "the deadline or a timeout ended it" from "the fault ran its
/// course" (the stalls: forever) on a loaded debug build.
const SLACK: Duration = Duration::from_secs(20);

/// Short stage timeouts, so a stall is cut in well under the deadline.
fn timeouts() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        preflight: Duration::from_millis(700),
        first_byte: Duration::from_millis(700),
        stream_idle: Duration::from_millis(400),
    }
}

fn backend(kind: BackendKind, server: &FaultyServer, max_retries: u32) -> Arc<dyn Backend> {
    let base = server.base_url(kind);
    let env = move |name: &str| match name {
        "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" => Some(FAKE_KEY.to_string()),
        "OPENAI_BASE_URL" | "ANTHROPIC_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            // The answer as text on every API (a stand-in on localhost
            // would get the tool strategy under `auto`).
            output: OutputChoice::Native,
            max_retries: Some(max_retries),
            ..Default::default()
        },
        timeouts: Some(timeouts()),
        ..BackendOptions::default()
    };
    connect_with_env(kind, "test-model", &options, &env).unwrap()
}

/// Runs the landmark question against `kind` on a stand-in playing
/// `script`; prints and bounds the time past the deadline.
async fn run(label: &str, kind: BackendKind, script: Vec<Fault>) -> (RunReport, FaultyServer) {
    run_with(label, kind, script, 2).await
}

async fn run_with(
    label: &str,
    kind: BackendKind,
    script: Vec<Fault>,
    max_retries: u32,
) -> (RunReport, FaultyServer) {
    let server = FaultyServer::start(kind, &eiffel().to_string(), script).await;
    let agent = Agent::new(
        backend(kind, &server, max_retries),
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_budget(Budget {
        deadline: Some(DEADLINE),
        ..Budget::default()
    });
    let start = Instant::now();
    let run = agent.run("Give me the landmark record.").await;
    let elapsed = start.elapsed();
    eprintln!(
        "stream fault {kind} {label}: {:?} in {:.0} ms after {} request(s) (deadline {} ms, overshoot {:.1} ms)",
        run.report.outcome.error_code(),
        elapsed.as_secs_f64() * 1000.0,
        server.posts(),
        DEADLINE.as_millis(),
        elapsed.saturating_sub(DEADLINE).as_secs_f64() * 1000.0,
    );
    assert!(
        elapsed < DEADLINE + SLACK,
        "{kind} {label}: ran {elapsed:?}"
    );
    (run.report, server)
}

fn passed(report: &RunReport) -> bool {
    report.outcome.value() == Some(&eiffel())
}

/// The failure's stage and detail, asserting the detail is short and holds
/// no key.
fn failure(report: &RunReport) -> (BackendErrorKind, Option<Stage>, String) {
    assert_eq!(
        report.outcome.error_code(),
        Some(ErrorCode::BackendError),
        "{report:?}"
    );
    let failure = report.backend_failure.clone().unwrap();
    let detail = failure.detail.clone().unwrap_or_default();
    assert!(detail.chars().count() <= 200, "{detail}");
    assert!(!detail.contains(FAKE_KEY), "{detail}");
    (failure.kind, failure.stage, detail)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_answer_is_asked_again_and_passes() {
    for kind in ALL {
        for k in [1, 3] {
            let (report, server) = run("cut", kind, vec![Fault::CutAfter(k), Fault::Healthy]).await;
            assert!(passed(&report), "{kind} cut at {k}: {report:?}");
            assert_eq!(server.posts(), 2, "{kind} cut at {k}");
            // The answer's usage, and what the cut attempt spent: on
            // Anthropic what `message_start` reported (80 in, 1 out); on the
            // OpenAI APIs, which report usage only at the end, an estimate
            // (the request's input, a token a piece received).
            match kind {
                BackendKind::Anthropic => assert_eq!(report.usage.total(), 181),
                _ => assert!(report.usage.input_tokens > 80, "{kind}: {:?}", report.usage),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stream_is_cut_after_the_idle_timeout_and_asked_again() {
    for kind in ALL {
        let start = Instant::now();
        let (report, server) = run("stall", kind, vec![Fault::StallAfter(2), Fault::Healthy]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(server.posts(), 2, "{kind}");
        assert!(start.elapsed() >= timeouts().stream_idle, "{kind}: waited");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_is_cut_at_the_first_byte_timeout() {
    for kind in ALL {
        let (report, server) = run("silent", kind, vec![Fault::Silent, Fault::Healthy]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(server.posts(), 2, "{kind}");
        // Never answering at all: the first-byte timeout, named.
        let (report, server) = run("silent ×3", kind, vec![Fault::Silent]).await;
        let (kind_, stage, detail) = failure(&report);
        assert_eq!(
            (kind_, stage),
            (BackendErrorKind::Transport, Some(Stage::FirstByte))
        );
        assert_eq!(server.posts(), 3, "{kind}: the first attempt and 2 retries");
        assert!(detail.contains("first_byte_secs"), "{detail}");
        assert!(detail.contains(&server.base_url(kind)), "{detail}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickle_within_the_idle_timeout_passes_and_a_slower_one_is_asked_again() {
    for kind in ALL {
        let (report, _) = run(
            "trickle 1 ms",
            kind,
            vec![Fault::Trickle(Duration::from_millis(1))],
        )
        .await;
        assert!(passed(&report), "{kind}: {report:?}");
        let slow = Fault::Trickle(Duration::from_secs(2));
        let (report, server) = run("trickle 2 s", kind, vec![slow, Fault::Healthy]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(server.posts(), 2, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_that_are_no_answer_are_one_clear_error_not_retried() {
    for kind in ALL {
        for (page, status, error_kind) in [
            (html_page(200), 200, BackendErrorKind::Protocol),
            (html_page(404), 404, BackendErrorKind::Http),
            (html_page(501), 501, BackendErrorKind::Http),
        ] {
            let (report, server) = run(&format!("HTML {status}"), kind, vec![page]).await;
            let (got, _, detail) = failure(&report);
            assert_eq!(got, error_kind, "{kind} {status}");
            assert_eq!(
                report
                    .backend_failure
                    .as_ref()
                    .unwrap()
                    .status
                    .unwrap_or(200),
                status
            );
            assert!(detail.contains("an HTML page"), "{kind} {status}: {detail}");
            assert_eq!(server.posts(), 1, "{kind} {status}: not retried");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_body_cut_short_is_asked_again() {
    for kind in ALL {
        let (report, server) =
            run("JSON cut short", kind, vec![Fault::CutJson, Fault::Healthy]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(server.posts(), 2, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_past_the_limit_is_a_protocol_error_not_retried() {
    for kind in ALL {
        let (report, server) = run("huge event", kind, vec![Fault::HugeEvent(5 << 20)]).await;
        let (got, _, detail) = failure(&report);
        assert_eq!(got, BackendErrorKind::Protocol, "{kind}");
        assert!(detail.contains("larger than"), "{detail}");
        assert_eq!(server.posts(), 1, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_after_the_end_marker_are_ignored() {
    for kind in ALL {
        let (report, server) = run("after end", kind, vec![Fault::AfterEnd]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(server.posts(), 1, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_without_usage_passes_with_nothing_counted() {
    for kind in ALL {
        let (report, _) = run("no usage", kind, vec![Fault::NoUsage]).await;
        assert!(passed(&report), "{kind}: {report:?}");
        assert_eq!(report.usage.total(), 0, "{kind}: nothing reported");
    }
}

/// Every attempt cut: the error says the stream stage; the input tokens
/// Anthropic reported in `message_start` before each drop are counted
/// (80 a time, 3 attempts); the OpenAI APIs report usage only at the end,
/// so each attempt's input is estimated from the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cuts_past_the_retry_budget_say_the_stage_and_count_what_was_reported() {
    for kind in ALL {
        let (report, server) = run("cut ×3", kind, vec![Fault::CutAfter(2)]).await;
        let (got, stage, detail) = failure(&report);
        assert_eq!(
            (got, stage),
            (BackendErrorKind::Transport, Some(Stage::Stream))
        );
        assert!(
            detail.contains("ended before the answer was complete"),
            "{detail}"
        );
        assert_eq!(server.posts(), 3, "{kind}");
        match kind {
            BackendKind::Anthropic => assert_eq!(report.usage.input_tokens, 3 * 80),
            _ => assert!(
                report.usage.input_tokens >= 3 * 50,
                "{kind}: {:?}",
                report.usage
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalls_past_the_retry_budget_say_the_stream_idle_setting() {
    for kind in ALL {
        let (report, server) = run_with("stall ×2", kind, vec![Fault::StallAfter(2)], 1).await;
        let (_, stage, detail) = failure(&report);
        assert_eq!(stage, Some(Stage::StreamIdle), "{kind}");
        assert!(detail.contains("stream_idle_secs"), "{detail}");
        assert_eq!(server.posts(), 2, "{kind}");
    }
}

/// The run deadline bounds everything: a stall with no stage timeout left
/// to cut it (unbounded timeouts) ends at the deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_still_ends_a_stall_no_timeout_cuts() {
    let kind = BackendKind::OpenAiChat;
    let server = FaultyServer::start(kind, "{}", vec![Fault::StallAfter(1)]).await;
    let base = server.base_url(kind);
    let env = move |name: &str| (name == "OPENAI_BASE_URL").then(|| base.clone());
    let options = BackendOptions {
        timeouts: Some(Timeouts::unbounded()),
        ..BackendOptions::default()
    };
    let backend = connect_with_env(kind, "test-model", &options, &env).unwrap();
    let deadline = Duration::from_secs(2);
    let agent = Agent::new(backend, Arc::new(landmark_schema()))
        .unwrap()
        .with_budget(Budget {
            deadline: Some(deadline),
            ..Budget::default()
        });
    let start = Instant::now();
    let run = agent.run("q").await;
    let overshoot = start.elapsed().saturating_sub(deadline);
    eprintln!(
        "stream fault {kind} stall, no timeouts: overshoot {:.1} ms",
        overshoot.as_secs_f64() * 1000.0
    );
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    assert!(overshoot < SLACK);
}

/// The check before the first item: a JSON answer passes whatever its
/// status; a page that is no API, a server that never answers, or no
/// server at all fail, each naming what it saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_before_the_first_item_tells_an_api_from_anything_else() {
    let json_404 = Fault::Page {
        status: 404,
        content_type: "application/json",
        body: r#"{"detail": "Not Found"}"#.into(),
    };
    let plain_404 = Fault::Page {
        status: 404,
        content_type: "text/plain",
        body: "404 page not found".into(),
    };
    for kind in ALL {
        let api = match kind {
            BackendKind::Anthropic => "not an Anthropic Messages API",
            _ => "not an OpenAI-compatible API",
        };
        for (label, models, outcome) in [
            ("model list", None, Ok(())),
            ("JSON 404", Some(json_404.clone()), Ok(())),
            ("HTML 200", Some(html_page(200)), Err(api)),
            ("HTML 501", Some(html_page(501)), Err(api)),
            ("text 404", Some(plain_404.clone()), Err("plain text")),
            ("silent", Some(Fault::Silent), Err("preflight_secs")),
        ] {
            let server = FaultyServer::start_with(kind, "{}", vec![], models).await;
            let start = Instant::now();
            let checked = backend(kind, &server, 2).preflight().await;
            assert!(start.elapsed() < SLACK, "{kind} {label}");
            match (checked, outcome) {
                (Ok(()), Ok(())) => {}
                (Err(e), Err(says)) => {
                    assert_eq!(e.stage, Some(Stage::Preflight), "{kind} {label}");
                    let detail = e.detail.clone().unwrap_or_default();
                    assert!(detail.contains(says), "{kind} {label}: {detail}");
                    assert!(detail.contains("127.0.0.1"), "{kind} {label}: {detail}");
                }
                (got, want) => panic!("{kind} {label}: {got:?}, expected {want:?}"),
            }
            assert_eq!(server.gets(), 1, "{kind} {label}: asked once");
            assert_eq!(server.posts(), 0, "{kind} {label}: no model request");
        }
    }
}

/// The stand-in's events are the official SDK's: each OpenAI event parses
/// as async-openai's types (the Rust SDK generated from OpenAI's OpenAPI
/// spec) — Chat Completions chunks and Responses stream events.
#[test]
fn the_stand_ins_openai_events_parse_as_the_sdks_types() {
    use async_openai::types::chat::CreateChatCompletionStreamResponse;
    use async_openai::types::responses::ResponseStreamEvent;
    let text = eiffel().to_string();
    for (_, data) in tribunal_testkit::sse::text_events(BackendKind::OpenAiChat, &text, "stop") {
        if data == "[DONE]" {
            continue;
        }
        if let Err(e) = serde_json::from_str::<CreateChatCompletionStreamResponse>(&data) {
            panic!("chat chunk {data}: {e}");
        }
    }
    for (name, data) in
        tribunal_testkit::sse::text_events(BackendKind::OpenAiResponses, &text, "stop")
    {
        if let Err(e) = serde_json::from_str::<ResponseStreamEvent>(&data) {
            panic!("responses event {name:?} {data}: {e}");
        }
    }
}
