//! Provider faults on the live backends, end to end through the agent loop:
//! a connection reset mid-body, a body that trickles past the deadline, a
//! malformed body, an unknown stop reason, a 10 MB body, a tool call naming
//! an unknown tool, tool arguments that are not JSON — each ends with its
//! code, within the deadline, with the usage the provider reported, while
//! other runs on the same process keep being served.
//!
//! These run on the real clock (a raw TCP server cannot share a paused
//! clock); every run that has a deadline prints its overshoot
//! (`cargo test -- faults --nocapture`), and the bound asserted is a
//! generous deadline + 2 s.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tribunal_runtime::{
    Agent, Backend, BackendKind, Budget, ErrorCode, RunReport, ToolBox, connect_with_env,
};
use tribunal_runtime::{BackendOptions, Stage};
use tribunal_testkit::agents::{Counter, eiffel, landmark_schema};
use tribunal_testkit::wire::*;
use wiremock::ResponseTemplate;

const DEADLINE: Duration = Duration::from_secs(3);
/// The bound asserted on every run, past the deadline. It only has to tell
/// "the deadline ended it" from "the fault ran its course", and every fault
/// here runs far longer on its own (a trickling body: 60 s; the stalls:
/// forever), so it is wide enough for a debug build on two loaded cores.
const SLACK: Duration = Duration::from_secs(20);

/// What the raw server does with one request.
#[derive(Clone)]
enum Raw {
    /// A complete 200 answer with this JSON body.
    Ok(Value),
    /// Headers announcing a long body, a prefix of it, then a TCP reset.
    ResetMidBody,
    /// Headers, then one byte of the body every `every`, for `bytes` bytes.
    Trickle { every: Duration, bytes: usize },
}

/// A minimal HTTP/1.1 server answering the `n`th request (over all
/// connections) with `script[n]` (the last entry repeats). Returns its base
/// URL and the number of requests it received.
async fn raw_server(script: Vec<Raw>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let script = Arc::new(script);
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let script = script.clone();
            let seen = seen.clone();
            tokio::spawn(serve(stream, script, seen));
        }
    });
    (base, count)
}

async fn serve(mut stream: TcpStream, script: Arc<Vec<Raw>>, seen: Arc<AtomicUsize>) {
    let mut buf = Vec::new();
    loop {
        // Read one request: headers, then Content-Length bytes of body.
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 8192];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + length {
            let mut chunk = [0u8; 8192];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        buf.drain(..head_end + length);
        let n = seen.fetch_add(1, Ordering::SeqCst);
        let step = script
            .get(n)
            .or(script.last())
            .cloned()
            .unwrap_or(Raw::ResetMidBody);
        match step {
            Raw::Ok(body) => {
                let body = body.to_string();
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                if stream.write_all(head.as_bytes()).await.is_err()
                    || stream.write_all(body.as_bytes()).await.is_err()
                {
                    return;
                }
            }
            Raw::ResetMidBody => {
                let prefix = b"{\"id\": \"chatcmpl-1\", \"choices\": [{\"index\": 0, ";
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    prefix.len() * 100
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(prefix).await;
                let _ = stream.flush().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                // Zero linger: closing sends RST, not FIN.
                let _ = stream.set_zero_linger();
                return;
            }
            Raw::Trickle { every, bytes } => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    bytes + 1
                );
                let _ = stream.write_all(head.as_bytes()).await;
                for _ in 0..bytes {
                    if stream.write_all(b" ").await.is_err() {
                        return;
                    }
                    tokio::time::sleep(every).await;
                }
                return;
            }
        }
    }
}

/// The environment of `kind` pointing at a raw server's base URL.
fn raw_env(kind: BackendKind, base: &str) -> impl Fn(&str) -> Option<String> + use<> {
    let base = match kind {
        BackendKind::Anthropic => base.to_string(),
        _ => format!("{base}/v1"),
    };
    move |name: &str| match name {
        "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" => Some(FAKE_KEY.to_string()),
        "OPENAI_BASE_URL" | "ANTHROPIC_BASE_URL" => Some(base.clone()),
        _ => None,
    }
}

fn raw_backend(kind: BackendKind, base: &str) -> Arc<dyn Backend> {
    connect_with_env(
        kind,
        "test-model",
        &BackendOptions::default(),
        &raw_env(kind, base),
    )
    .unwrap()
}

fn wiremock_backend(kind: BackendKind, server: &wiremock::MockServer) -> Arc<dyn Backend> {
    let env = env_for(kind, server);
    connect_with_env(kind, "test-model", &BackendOptions::default(), &env).unwrap()
}

fn agent(backend: Arc<dyn Backend>, tools: ToolBox) -> Agent {
    Agent::new(backend, Arc::new(landmark_schema()))
        .unwrap()
        .with_tools(tools)
        .with_budget(Budget {
            deadline: Some(DEADLINE),
            ..Budget::default()
        })
}

/// An agent for the big-body faults, whose point is a size limit, not the
/// deadline: a debug build on two loaded cores can take seconds to read and
/// scan tens of MiB, so the deadline is far away and no time is asserted.
fn big_body_agent(backend: Arc<dyn Backend>) -> Agent {
    agent(backend, ToolBox::new()).with_budget(Budget {
        deadline: Some(Duration::from_secs(120)),
        ..Budget::default()
    })
}

/// Runs `agent` on the real clock, prints and bounds the overshoot past
/// the deadline, and returns the report.
async fn timed(label: &str, agent: &Agent) -> RunReport {
    let start = Instant::now();
    let run = agent.run("Give me the landmark record.").await;
    let elapsed = start.elapsed();
    let overshoot = elapsed.saturating_sub(DEADLINE);
    eprintln!(
        "fault {label}: {:?} in {:.1} ms (deadline {} ms, overshoot {:.1} ms)",
        run.report.outcome.error_code(),
        elapsed.as_secs_f64() * 1000.0,
        DEADLINE.as_millis(),
        overshoot.as_secs_f64() * 1000.0
    );
    assert!(
        elapsed < DEADLINE + SLACK,
        "{label}: ran {elapsed:?}, past the deadline {DEADLINE:?} + {SLACK:?}"
    );
    run.report
}

/// The raw JSON body of `kind`'s tool-call turn (usage 50 + 10).
fn tool_call_body(kind: BackendKind, name: &str, arguments: &str) -> Value {
    match kind {
        BackendKind::OpenAiChat => json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": name, "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
        }),
        BackendKind::OpenAiResponses => json!({
            "id": "resp_1", "object": "response", "status": "completed", "model": "test-model",
            "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name,
                        "arguments": arguments, "status": "completed"}],
            "usage": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}
        }),
        // Anthropic's `input` is an object on the wire; a string stands for
        // a provider that sends the arguments as (broken) text.
        BackendKind::Anthropic => json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "tool_use", "id": "call_1", "name": name,
                         "input": serde_json::from_str::<Value>(arguments)
                             .unwrap_or_else(|_| Value::String(arguments.to_string()))}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 50, "output_tokens": 10}
        }),
    }
}

/// The raw JSON body of `kind`'s final text turn (usage 80 + 20).
fn text_body(kind: BackendKind, text: &str) -> Value {
    match kind {
        BackendKind::OpenAiChat => json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}
        }),
        BackendKind::OpenAiResponses => json!({
            "id": "resp_2", "object": "response", "status": "completed",
            "output": [{"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": {"input_tokens": 80, "output_tokens": 20, "total_tokens": 100}
        }),
        BackendKind::Anthropic => json!({
            "id": "msg_2", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 80, "output_tokens": 20}
        }),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_reset_mid_body_is_retried_and_the_run_passes() {
    for kind in ALL {
        let (base, requests) = raw_server(vec![
            Raw::Ok(tool_call_body(kind, "count", "{\"q\": \"x\"}")),
            Raw::ResetMidBody,
            Raw::Ok(text_body(kind, &eiffel().to_string())),
        ])
        .await;
        let (count, ran) = Counter::new("count");
        let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
        let report = timed(&format!("{kind} reset mid-body"), &agent).await;
        assert!(
            report.outcome.value().is_some(),
            "{kind}: {:?}",
            report.outcome
        );
        // The broken answer was asked again, its prefix discarded.
        assert_eq!(requests.load(Ordering::SeqCst), 3, "{kind}");
        assert_eq!(ran.load(Ordering::SeqCst), 1, "{kind}");
        // Both turns' usage (160), and an estimate for the attempt cut
        // mid-body (the server read the request: its input is counted).
        assert!(report.usage.total() > 160, "{kind}: {:?}", report.usage);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resets_past_the_retry_budget_end_as_a_backend_error_at_the_stream_stage() {
    for kind in ALL {
        let (base, requests) = raw_server(vec![
            Raw::Ok(tool_call_body(kind, "count", "{\"q\": \"x\"}")),
            Raw::ResetMidBody,
        ])
        .await;
        let (count, ran) = Counter::new("count");
        let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
        let report = timed(&format!("{kind} reset mid-body ×3"), &agent).await;
        assert_eq!(
            report.outcome.error_code(),
            Some(ErrorCode::BackendError),
            "{kind}: {:?}",
            report.outcome
        );
        // One tool-call turn, then the first attempt and two retries.
        assert_eq!(requests.load(Ordering::SeqCst), 4, "{kind}");
        assert_eq!(ran.load(Ordering::SeqCst), 1, "{kind}");
        // The first turn's usage (60) and an estimate for each cut attempt.
        assert!(report.usage.total() > 60, "{kind}: {:?}", report.usage);
        let failure = report.backend_failure.as_ref().unwrap();
        assert_eq!(failure.stage, Some(Stage::Stream), "{kind}");
        let detail = failure.detail.as_deref().unwrap_or_default();
        assert!(detail.contains("broke off"), "{kind}: {detail}");
        assert!(!detail.contains(FAKE_KEY), "{kind}: {detail}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_trickling_past_the_deadline_ends_at_the_deadline() {
    for kind in ALL {
        let (base, _) = raw_server(vec![
            Raw::Ok(tool_call_body(kind, "count", "{}")),
            Raw::Trickle {
                every: Duration::from_millis(100),
                bytes: 600,
            },
        ])
        .await;
        let (count, _) = Counter::new("count");
        let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
        let report = timed(&format!("{kind} trickle"), &agent).await;
        assert_eq!(
            report.outcome.error_code(),
            Some(ErrorCode::DeadlineExceeded),
            "{kind}: {:?}",
            report.outcome
        );
        assert_eq!(report.usage.total(), 60, "{kind}: the first turn's usage");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_are_backend_errors_not_retried() {
    let malformed = [
        ResponseTemplate::new(200)
            .set_body_raw("{\"choices\": [{\"index\": 0,", "application/json"),
        ResponseTemplate::new(200).set_body_raw("<html>502 Bad Gateway</html>", "text/html"),
        ResponseTemplate::new(200).set_body_raw("", "application/json"),
        ResponseTemplate::new(200).set_body_json(json!({"choices": "not a list", "content": 7})),
    ];
    for kind in ALL {
        for (i, body) in malformed.iter().enumerate() {
            let server = model_server(kind, vec![body.clone()]).await;
            let agent = agent(wiremock_backend(kind, &server), ToolBox::new());
            let report = timed(&format!("{kind} malformed #{i}"), &agent).await;
            // Cut-off JSON, HTML, an empty body, and JSON of the wrong shape
            // (including a Responses body without `output`) are all protocol
            // failures: `backend_error`, sent once.
            assert_eq!(
                report.outcome.error_code(),
                Some(ErrorCode::BackendError),
                "{kind} #{i}: {:?}",
                report.outcome
            );
            assert_eq!(bodies(&server).await.len(), 1, "{kind} #{i}: not retried");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_stop_reason_is_read_as_the_end_of_the_turn() {
    for kind in ALL {
        let server = model_server(
            kind,
            vec![text_turn_with(
                kind,
                &eiffel().to_string(),
                "brand_new_reason",
            )],
        )
        .await;
        let agent = agent(wiremock_backend(kind, &server), ToolBox::new());
        let report = timed(&format!("{kind} unknown stop reason"), &agent).await;
        match kind {
            // The Responses API signals a stop other than completion only as
            // `status: incomplete`, which is read as a cut-off answer.
            BackendKind::OpenAiResponses => assert_eq!(
                report.outcome.error_code(),
                Some(ErrorCode::Truncated),
                "{kind}: {:?}",
                report.outcome
            ),
            _ => assert_eq!(
                report.outcome.value(),
                Some(&eiffel()),
                "{kind}: {:?}",
                report.outcome
            ),
        }
        // A truncation gets its one repair, which is cut off the same way.
        let turns = if kind == BackendKind::OpenAiResponses {
            2
        } else {
            1
        };
        assert_eq!(report.usage.total(), 100 * turns, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10_mb_answer_is_too_large_and_the_repair_quotes_none_of_it() {
    let huge = format!(
        "{{\"name\": \"{}\", \"year\": 1889, \"height_m\": 330, \"sources\": [\"1\"]}}",
        "x".repeat(10 * 1024 * 1024)
    );
    for kind in ALL {
        let server = model_server(kind, vec![text_turn(kind, &huge)]).await;
        let agent = big_body_agent(wiremock_backend(kind, &server));
        let report = agent.run("Give me the landmark record.").await.report;
        assert_eq!(
            report.outcome.error_code(),
            Some(ErrorCode::TooLarge),
            "{kind}: {:?}",
            report.outcome.error_code()
        );
        assert!(report.repair_used, "{kind}");
        // The answer and its one repair, each reported as 80 + 20.
        assert_eq!(report.usage.total(), 200, "{kind}");
        let sent = bodies(&server).await;
        assert_eq!(sent.len(), 2, "{kind}");
        let repair_request = sent[1].to_string();
        // The request carries the huge answer back once (as the assistant
        // turn), but the repair message itself is short.
        assert!(
            repair_request.len() < huge.len() + 64 * 1024,
            "{kind}: {}",
            repair_request.len()
        );
        assert!(repair_request.contains("too_large"), "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_naming_an_unknown_tool_goes_back_as_an_error_result() {
    for kind in ALL {
        let (base, _) = raw_server(vec![
            Raw::Ok(tool_call_body(kind, "rm_rf_slash", "{\"path\": \"/\"}")),
            Raw::Ok(text_body(kind, &eiffel().to_string())),
        ])
        .await;
        let (count, ran) = Counter::new("count");
        let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
        let report = timed(&format!("{kind} unknown tool"), &agent).await;
        assert_eq!(
            report.outcome.value(),
            Some(&eiffel()),
            "{kind}: {:?}",
            report.outcome
        );
        assert_eq!(report.tool_calls.len(), 1, "{kind}");
        assert!(!report.tool_calls[0].ok, "{kind}");
        assert_eq!(ran.load(Ordering::SeqCst), 0, "{kind}");
        assert_eq!(report.usage.total(), 160, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_arguments_that_are_not_json_never_reach_the_tool() {
    for kind in ALL {
        // (An empty string is read as `{}`: providers send it for
        // functions without parameters.)
        for arguments in ["{not json", "{\"q\": \"unterminated", "[1, 2"] {
            let (base, _) = raw_server(vec![
                Raw::Ok(tool_call_body(kind, "count", arguments)),
                Raw::Ok(text_body(kind, &eiffel().to_string())),
            ])
            .await;
            let (count, ran) = Counter::new("count");
            let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
            let report = timed(&format!("{kind} arguments {arguments:?}"), &agent).await;
            assert_eq!(
                report.outcome.value(),
                Some(&eiffel()),
                "{kind} {arguments:?}: {:?}",
                report.outcome
            );
            assert_eq!(report.tool_calls.len(), 1, "{kind} {arguments:?}");
            assert!(!report.tool_calls[0].ok, "{kind} {arguments:?}");
            assert_eq!(ran.load(Ordering::SeqCst), 0, "{kind} {arguments:?}");
            assert_eq!(report.usage.total(), 160, "{kind} {arguments:?}");
        }
    }
}

/// One process, many runs at once: faulty runs end with their codes while
/// the healthy ones beside them still succeed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faulty_runs_do_not_disturb_concurrent_healthy_runs() {
    let mut runs = Vec::new();
    for kind in ALL {
        for fault in 0..4 {
            let script = match fault {
                0 => vec![Raw::ResetMidBody],
                1 => vec![Raw::Trickle {
                    every: Duration::from_millis(100),
                    bytes: 600,
                }],
                2 => vec![
                    Raw::Ok(tool_call_body(kind, "nope", "{bad")),
                    Raw::Ok(text_body(kind, &eiffel().to_string())),
                ],
                _ => vec![
                    Raw::Ok(tool_call_body(kind, "count", "{}")),
                    Raw::Ok(text_body(kind, &eiffel().to_string())),
                ],
            };
            let (base, _) = raw_server(script).await;
            let (count, _) = Counter::new("count");
            let agent = agent(raw_backend(kind, &base), ToolBox::new().with(count));
            runs.push(tokio::spawn(async move {
                let label = format!("{kind} concurrent #{fault}");
                (kind, fault, timed(&label, &agent).await)
            }));
        }
    }
    for run in runs {
        let (kind, fault, report) = run.await.unwrap();
        let code = report.outcome.error_code();
        match fault {
            0 => assert_eq!(code, Some(ErrorCode::BackendError), "{kind}"),
            1 => assert_eq!(code, Some(ErrorCode::DeadlineExceeded), "{kind}"),
            _ => assert_eq!(report.outcome.value(), Some(&eiffel()), "{kind} #{fault}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_read_cap_is_a_backend_error_not_unbounded_memory() {
    // A valid Chat Completions answer followed by 33 MiB of whitespace: still
    // valid JSON, so only the 32 MiB read cap (shared by every live backend in
    // `backend/http.rs`) can turn it into an error.
    let answer = json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": eiffel().to_string(), "refusal": null}}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}
    });
    let body = answer.to_string() + &" ".repeat(33 * 1024 * 1024);
    let kind = BackendKind::OpenAiChat;
    let server = model_server(
        kind,
        vec![ResponseTemplate::new(200).set_body_raw(body, "application/json")],
    )
    .await;
    let agent = big_body_agent(wiremock_backend(kind, &server));
    let report = agent.run("Give me the landmark record.").await.report;
    assert_eq!(
        report.outcome.error_code(),
        Some(ErrorCode::BackendError),
        "{:?}",
        report.outcome
    );
    assert_eq!(bodies(&server).await.len(), 1, "not retried");
}
