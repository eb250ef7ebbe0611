//! Streamed runs (`Agent::run_stream`) against stand-in servers that speak
//! each provider's server-sent events: the streamed report equals the
//! unstreamed one on the same answers (usage, repair, truncation), the
//! events come in order and add up to the answers, retries stop at the
//! first delta, the key never reaches a delta, and deadlines hold.

use futures::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::Message;
use tribunal_runtime::internal::backend::{BackendOptions, Recording, Replay, Retry, Stage};
use tribunal_runtime::{
    Agent, Backend, BackendKind, Budget, ErrorCode, OutputChoice, RunEvent, RunReport,
};
use tribunal_testkit::agents::eiffel;
use tribunal_testkit::sse::*;
use tribunal_testkit::wire::*;
use wiremock::ResponseTemplate;

/// The streamed form of `tool_call_turn(kind, id, name, args)`.
fn sse_tool_call(kind: BackendKind, id: &str, name: &str, args: Value) -> ResponseTemplate {
    let args_text = args.to_string();
    let mut events = Vec::new();
    match kind {
        BackendKind::OpenAiChat => {
            events.push(chat_chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id,
                    "type": "function", "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ));
            for piece in pieces(&args_text) {
                events.push(chat_chunk(
                    json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                    Value::Null,
                ));
            }
            events.extend(chat_end("tool_calls", 50, 10));
        }
        BackendKind::OpenAiResponses => {
            let item = json!({"type": "function_call", "id": "fc_1", "call_id": id, "name": name,
                "arguments": args_text, "status": "completed"});
            events.push(named("response.created", json!({"type": "response.created",
                "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}})));
            events.push(named(
                "response.output_item.added",
                json!({"type": "response.output_item.added",
                "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": id,
                "name": name, "arguments": "", "status": "in_progress"}}),
            ));
            for piece in pieces(&args_text) {
                events.push(named(
                    "response.function_call_arguments.delta",
                    json!({
                    "type": "response.function_call_arguments.delta", "output_index": 0,
                    "item_id": "fc_1", "delta": piece}),
                ));
            }
            events.push(named(
                "response.output_item.done",
                json!({"type": "response.output_item.done",
                "output_index": 0, "item": item}),
            ));
            events.push(named(
                "response.completed",
                json!({"type": "response.completed", "response": {
                "id": "resp_1", "object": "response", "status": "completed", "model": "test-model",
                "output": [item],
                "usage": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}}}),
            ));
        }
        BackendKind::Anthropic => {
            events.push(anthropic_start("msg_1", 50));
            events.push(named("ping", json!({"type": "ping"})));
            let text = json!({"type": "text", "text": ""});
            events.extend(anthropic_block(
                0,
                text,
                "text_delta",
                "text",
                "Let me search.",
            ));
            let call = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
            events.extend(anthropic_block(
                1,
                call,
                "input_json_delta",
                "partial_json",
                &args_text,
            ));
            events.extend(anthropic_end("tool_use", 10));
        }
    }
    sse(&events)
}

/// The streamed form of `text_turn_with(kind, text, stop)`.
fn sse_text_with(kind: BackendKind, text: &str, stop: &str) -> ResponseTemplate {
    sse(&text_events(kind, text, stop))
}

fn sse_text(kind: BackendKind, text: &str) -> ResponseTemplate {
    sse_text_with(kind, text, "stop")
}

/// A report without its timings, for comparing two runs.
fn timeless(report: &RunReport) -> Value {
    let mut value = serde_json::to_value(report).unwrap();
    value.as_object_mut().unwrap().remove("wall_ms");
    for call in value["tool_calls"].as_array_mut().into_iter().flatten() {
        call.as_object_mut().unwrap().remove("duration_ms");
    }
    value
}

/// Runs `agent` as a stream to the end: the events before `Finished`, and
/// the run.
async fn stream_to_end(agent: &Agent, input: &str) -> (Vec<RunEvent>, tribunal_runtime::Run) {
    let mut stream = agent.run_stream(input);
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        if let RunEvent::Finished(run) = event {
            assert!(stream.next().await.is_none(), "Finished is the last event");
            return (events, *run);
        }
        events.push(event);
    }
    panic!("the stream ended without Finished: {events:?}");
}

/// A compact trace of events: `call N purpose`, `text …` (deltas of a turn
/// joined), `args name …`, `tools n`, `result id`.
fn trace(events: &[RunEvent]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for event in events {
        let line = match event {
            RunEvent::ModelCall { turn, purpose } => format!("call {turn} {purpose:?}"),
            RunEvent::TextDelta(text) => {
                if let Some(last) = out.last_mut().filter(|l| l.starts_with("text ")) {
                    last.push_str(text);
                    continue;
                }
                format!("text {text}")
            }
            RunEvent::ToolArgumentsDelta {
                index,
                name,
                fragment,
            } => {
                let head = format!("args {index} {name} ");
                if let Some(last) = out.last_mut().filter(|l| l.starts_with(&head)) {
                    last.push_str(fragment);
                    continue;
                }
                format!("{head}{fragment}")
            }
            RunEvent::ToolCalls(calls) => format!("tools {}", calls.len()),
            RunEvent::ToolResult { result, .. } => {
                format!("result {} error={}", result.id, result.is_error)
            }
            other => format!("{other:?}"),
        };
        out.push(line);
    }
    out
}

/// Tool call, an invalid answer, the repair: streamed and whole on `kind`.
async fn streamed_equals_whole(kind: BackendKind) {
    let invalid = json!({"name": "Eiffel Tower", "year": 1889, "height_m": 330}).to_string();
    let good = eiffel().to_string();
    let args = json!({"query": "Eiffel Tower"});
    let whole = model_server(
        kind,
        vec![
            tool_call_turn(kind, "call_1", "search", args.clone()),
            text_turn(kind, &invalid),
            text_turn(kind, &good),
        ],
    )
    .await;
    let streamed = model_server(
        kind,
        vec![
            sse_tool_call(kind, "call_1", "search", args.clone()),
            sse_text(kind, &invalid),
            sse_text(kind, &good),
        ],
    )
    .await;
    let input = "Give me the landmark record of the Eiffel Tower.";
    // The plain run reads whole answers: runaway turns are not watched for.
    let unwatched = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            cut_runaway: Some(false),
            ..hosted().settings
        },
        ..hosted()
    };
    let plain = search_agent(provider(kind, &whole, &unwatched))
        .run(input)
        .await;
    let (events, run) =
        stream_to_end(&search_agent(provider(kind, &streamed, &hosted())), input).await;

    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{:?}",
        run.report
    );
    assert!(run.report.repair_used);
    assert_eq!(run.report.usage.total(), 60 + 100 + 100);
    assert_eq!(timeless(&run.report), timeless(&plain.report));
    assert_eq!(run.conversation, plain.conversation);

    let preamble = match kind {
        BackendKind::Anthropic => vec!["text Let me search.".to_string()],
        _ => vec![],
    };
    let mut expected = vec!["call 1 Agent".to_string()];
    expected.extend(preamble);
    expected.extend([
        format!("args 0 search {args}"),
        "tools 1".into(),
        "result call_1 error=false".into(),
        "call 2 Agent".into(),
        format!("text {invalid}"),
        "call 3 Repair".into(),
        format!("text {good}"),
    ]);
    assert_eq!(trace(&events), expected);

    let sent = bodies(&streamed).await;
    assert_eq!(sent.len(), 3);
    for body in &sent {
        assert_eq!(body["stream"], true, "{body}");
        let options = body.get("stream_options");
        match kind {
            BackendKind::OpenAiChat => assert_eq!(options, Some(&json!({"include_usage": true}))),
            _ => assert_eq!(options, None),
        }
    }
    // Apart from the stream fields, the requests are the unstreamed ones.
    let unstreamed: Vec<Value> = sent
        .into_iter()
        .map(|mut b| {
            let map = b.as_object_mut().unwrap();
            map.remove("stream");
            map.remove("stream_options");
            b
        })
        .collect();
    assert_eq!(unstreamed, bodies(&whole).await);
}

#[tokio::test]
async fn openai_chat_streamed_run_equals_the_whole_one() {
    streamed_equals_whole(BackendKind::OpenAiChat).await;
}

#[tokio::test]
async fn openai_responses_streamed_run_equals_the_whole_one() {
    streamed_equals_whole(BackendKind::OpenAiResponses).await;
}

#[tokio::test]
async fn anthropic_streamed_run_equals_the_whole_one() {
    streamed_equals_whole(BackendKind::Anthropic).await;
}

#[tokio::test]
async fn a_truncated_stream_is_truncated_like_a_whole_answer() {
    for kind in ALL {
        let text = "{\"name\": \"Eiffel";
        let whole = model_server(kind, vec![truncated_turn(kind, text)]).await;
        let stop = match kind {
            BackendKind::OpenAiChat => "length",
            BackendKind::OpenAiResponses => "max_output_tokens",
            BackendKind::Anthropic => "max_tokens",
        };
        let streamed = model_server(kind, vec![sse_text_with(kind, text, stop)]).await;
        let plain = search_agent(provider(kind, &whole, &hosted()))
            .run("q")
            .await;
        let (_, run) =
            stream_to_end(&search_agent(provider(kind, &streamed, &hosted())), "q").await;
        assert_eq!(
            run.report.outcome.error_code(),
            Some(ErrorCode::Truncated),
            "{kind:?}"
        );
        assert_eq!(timeless(&run.report), timeless(&plain.report), "{kind:?}");
    }
}

#[tokio::test]
async fn under_the_tool_strategy_the_answer_streams_as_answer_tool_arguments() {
    let kind = BackendKind::OpenAiChat;
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            output: OutputChoice::Tool,
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let answer = eiffel();
    let server = model_server(
        kind,
        vec![sse_tool_call(
            kind,
            "call_9",
            "final_answer",
            answer.clone(),
        )],
    )
    .await;
    let (events, run) = stream_to_end(&search_agent(provider(kind, &server, &options)), "q").await;
    assert_eq!(
        run.report.outcome.value(),
        Some(&answer),
        "{:?}",
        run.report
    );
    assert_eq!(
        trace(&events),
        vec![
            "call 1 Agent".to_string(),
            format!("args 0 final_answer {answer}")
        ]
    );
}

/// A stream that breaks off: `kind`'s first events of a text answer, then
/// nothing more.
fn broken_stream(kind: BackendKind) -> ResponseTemplate {
    let events = match kind {
        BackendKind::OpenAiChat => vec![chat_chunk(json!({"content": "{\"name\""}), Value::Null)],
        BackendKind::OpenAiResponses => vec![named(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "output_index": 0, "delta": "{\"name\""}),
        )],
        BackendKind::Anthropic => vec![
            named(
                "message_start",
                json!({"type": "message_start", "message": {"content": []}}),
            ),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ),
            named(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "{\"name\""}}),
            ),
        ],
    };
    sse(&events)
}

#[tokio::test]
async fn a_stream_that_breaks_off_is_asked_again_and_its_deltas_are_void() {
    for kind in ALL {
        let server = model_server(
            kind,
            vec![broken_stream(kind), sse_text(kind, &eiffel().to_string())],
        )
        .await;
        let backend = Retry::new(provider(kind, &server, &hosted()), 3)
            .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
        let (events, run) = stream_to_end(&search_agent(Arc::new(backend)), "q").await;
        assert!(
            run.report.outcome.value().is_some(),
            "{kind:?}: {:?}",
            run.report
        );
        assert_eq!(bodies(&server).await.len(), 2, "{kind:?}: asked again");
        let trace = trace(&events);
        assert_eq!(
            trace[..3],
            [
                "call 1 Agent".to_string(),
                "text {\"name\"".into(),
                "Restart".into()
            ],
            "{kind:?}"
        );
        // After the restart, the deltas add up to the whole answer.
        assert_eq!(trace[3], format!("text {}", eiffel()), "{kind:?}");
    }
}

#[tokio::test]
async fn an_error_event_mid_stream_keeps_the_providers_error_type_and_is_retried_when_it_passes() {
    for (kind, error, expected) in [
        (
            BackendKind::Anthropic,
            sse(&[
                named(
                    "message_start",
                    json!({"type": "message_start", "message": {"content": []}}),
                ),
                named(
                    "error",
                    json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                ),
            ]),
            "overloaded_error",
        ),
        (
            BackendKind::OpenAiResponses,
            sse(&[named(
                "error",
                json!({"type": "error", "code": "server_error", "message": "boom", "param": null}),
            )]),
            "server_error",
        ),
        (
            BackendKind::OpenAiChat,
            sse(&[(
                None,
                json!({"error": {"message": "boom", "type": "server_error"}}).to_string(),
            )]),
            "server_error",
        ),
    ] {
        let server = model_server(kind, vec![error]).await;
        let backend = Retry::new(provider(kind, &server, &hosted()), 3)
            .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
        let (_, run) = stream_to_end(&search_agent(Arc::new(backend)), "q").await;
        let failure = run.report.backend_failure.as_ref().unwrap();
        assert_eq!(failure.provider_type.as_deref(), Some(expected), "{kind:?}");
        assert_eq!(failure.stage, Some(Stage::ErrorEvent), "{kind:?}");
        // An overload or a server error passes: asked again, as the same
        // error before the stream would be (1 + 3 retries).
        assert_eq!(bodies(&server).await.len(), 4, "{kind:?}");
    }
    // An error event that will not pass (an invalid request) is not asked
    // again.
    let kind = BackendKind::Anthropic;
    let invalid = sse(&[named(
        "error",
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}),
    )]);
    let server = model_server(kind, vec![invalid]).await;
    let backend = Retry::new(provider(kind, &server, &hosted()), 3)
        .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
    let (_, run) = stream_to_end(&search_agent(Arc::new(backend)), "q").await;
    let failure = run.report.backend_failure.as_ref().unwrap();
    assert_eq!(
        failure.provider_type.as_deref(),
        Some("invalid_request_error")
    );
    assert_eq!(bodies(&server).await.len(), 1);
}

#[tokio::test]
async fn failures_before_the_first_byte_are_retried() {
    for kind in ALL {
        let good = eiffel().to_string();
        let server = model_server(
            kind,
            vec![error_turn(kind, 503, "overloaded"), sse_text(kind, &good)],
        )
        .await;
        let backend = Retry::new(provider(kind, &server, &hosted()), 2)
            .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
        let (events, run) = stream_to_end(&search_agent(Arc::new(backend)), "q").await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{kind:?}");
        assert_eq!(bodies(&server).await.len(), 2);
        assert_eq!(
            trace(&events),
            vec!["call 1 Agent".to_string(), format!("text {good}")]
        );
    }
}

#[tokio::test]
async fn a_key_split_across_deltas_never_reaches_an_event() {
    for kind in ALL {
        // The key echoed in a text whose 7-character pieces cut through it.
        let text = format!("{{\"note\": \"x{FAKE_KEY}y\"}}");
        let server = model_server(kind, vec![sse_text(kind, &text)]).await;
        let (events, run) =
            stream_to_end(&search_agent(provider(kind, &server, &hosted())), "q").await;
        let shown = format!("{events:?} {:?}", run.conversation);
        assert!(!shown.contains(FAKE_KEY), "{kind:?}: {shown}");
        assert_eq!(
            trace(&events)[1],
            "text {\"note\": \"x[redacted]y\"}",
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_server_that_answers_whole_is_read_whole() {
    for kind in ALL {
        let good = eiffel().to_string();
        let server = model_server(kind, vec![text_turn(kind, &good)]).await;
        let (events, run) =
            stream_to_end(&search_agent(provider(kind, &server, &hosted())), "q").await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{kind:?}");
        assert_eq!(
            trace(&events),
            vec!["call 1 Agent".to_string(), format!("text {good}")]
        );
    }
}

#[tokio::test]
async fn a_slow_stream_ends_at_the_deadline() {
    let kind = BackendKind::OpenAiChat;
    let slow = sse_text(kind, &eiffel().to_string()).set_delay(Duration::from_secs(5));
    let server = model_server(kind, vec![slow]).await;
    let agent = search_agent(provider(kind, &server, &hosted())).with_budget(Budget {
        deadline: Some(Duration::from_millis(200)),
        ..Budget::default()
    });
    let (_, run) = stream_to_end(&agent, "q").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
}

#[tokio::test]
async fn a_streamed_recording_replays_as_the_same_run() {
    let kind = BackendKind::Anthropic;
    let args = json!({"query": "Eiffel Tower"});
    let server = model_server(
        kind,
        vec![
            sse_tool_call(kind, "call_1", "search", args),
            sse_text(kind, &eiffel().to_string()),
        ],
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("streamed.jsonl");
    let recording = Recording::new(provider(kind, &server, &hosted()), &cassette).unwrap();
    let (_, streamed) = stream_to_end(&search_agent(Arc::new(recording)), "q").await;
    let replay = Replay::from_file(&cassette).unwrap();
    let replayed = search_agent(Arc::new(replay)).run("q").await;
    assert_eq!(replayed.report.outcome.value(), Some(&eiffel()));
    assert_eq!(timeless(&replayed.report), timeless(&streamed.report));
}

#[tokio::test]
async fn a_scripted_run_streams_each_turn_whole() {
    use tribunal_runtime::{ScriptTurn, ScriptedBackend};
    let turns: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "search", "arguments": {"query": "Eiffel"}}]},
        {"text": "not json"},
        {"text": eiffel().to_string()},
    ]))
    .unwrap();
    let backend = Arc::new(ScriptedBackend::from_script(&turns));
    let (events, run) = stream_to_end(&search_agent(backend), "q").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    let trace = trace(&events);
    assert_eq!(trace[0], "call 1 Agent");
    assert!(trace[1].starts_with("args 0 search "), "{trace:?}");
    assert_eq!(&trace[2..4], ["tools 1", "result call_0_0 error=false"]);
    assert_eq!(
        &trace[4..],
        [
            "call 2 Agent".to_string(),
            "text not json".into(),
            "call 3 Repair".into(),
            format!("text {}", eiffel()),
        ]
    );
}

/// Sends one delta, then fails with an error that is retryable by itself
/// (a transport failure without a status); answers on a later attempt.
struct FailsAfterADelta(std::sync::atomic::AtomicU32);

impl Backend for FailsAfterADelta {
    fn info(&self) -> tribunal_runtime::BackendInfo<'_> {
        tribunal_runtime::BackendInfo {
            name: "flaky",
            model: "m",
            plan: tribunal_runtime::OutputPlan::native(tribunal_runtime::SchemaTarget::Plain),
        }
    }

    fn complete<'a>(
        &'a self,
        _request: &'a tribunal_runtime::ModelRequest,
    ) -> futures::future::BoxFuture<
        'a,
        Result<tribunal_runtime::ModelTurn, tribunal_runtime::BackendError>,
    > {
        unreachable!("only streamed here")
    }

    fn complete_streaming<'a>(
        &'a self,
        _request: &'a tribunal_runtime::ModelRequest,
        sink: tribunal_runtime::DeltaSink<'a>,
    ) -> futures::future::BoxFuture<
        'a,
        Result<tribunal_runtime::ModelTurn, tribunal_runtime::BackendError>,
    > {
        Box::pin(async move {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sink(tribunal_runtime::Delta::Text("{\"na".into()));
            Err(tribunal_runtime::BackendError::new(
                tribunal_runtime::BackendErrorKind::Transport,
                "connection reset",
            ))
        })
    }
}

#[tokio::test]
async fn a_retryable_failure_after_a_delta_restarts_the_answer_within_the_retries() {
    let inner = Arc::new(FailsAfterADelta(Default::default()));
    let backend = Retry::new(inner.clone(), 3)
        .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
    let (events, run) = stream_to_end(&search_agent(Arc::new(backend)), "q").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::BackendError)
    );
    assert_eq!(inner.0.load(std::sync::atomic::Ordering::Relaxed), 4);
    let mut expected = vec!["call 1 Agent".to_string()];
    for attempt in 0..4 {
        if attempt > 0 {
            expected.push("Restart".into());
        }
        expected.push("text {\"na".into());
    }
    assert_eq!(trace(&events), expected);
}

/// A search, then an answer that runs away — the same sentence over and
/// over until the output limit — then a good answer: on every API the
/// runaway turn is cut where it began to repeat, kept that short in the
/// conversation, and repaired as a `runaway` answer.
#[tokio::test]
async fn a_turn_that_runs_away_is_cut_and_repaired_on_every_api() {
    let start = "{\"name\": \"Eiffel Tower\", \"note\": \"";
    let sentence = "The tower stands in Paris, by the river Seine, and it is tall. ";
    let looping = format!("{start}{}", sentence.repeat(30));
    for kind in ALL {
        let stop = match kind {
            BackendKind::OpenAiChat => "length",
            BackendKind::OpenAiResponses => "max_output_tokens",
            BackendKind::Anthropic => "max_tokens",
        };
        let script = || {
            vec![
                sse_tool_call(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
                sse_text_with(kind, &looping, stop),
                sse_text(kind, &eiffel().to_string()),
            ]
        };
        let server = model_server(kind, script()).await;
        let (_, run) = stream_to_end(&search_agent(provider(kind, &server, &hosted())), "q").await;
        assert_eq!(
            run.report.outcome.value(),
            Some(&eiffel()),
            "{kind:?}: {:?}",
            run.report
        );
        assert!(run.report.repair_used, "{kind:?}");
        let texts: Vec<&str> = run
            .conversation
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let cut = texts[1];
        assert!(cut.starts_with(start), "{kind:?}: {cut}");
        assert!(
            cut.len() < start.len() + 2 * sentence.len(),
            "{kind:?}: kept {} bytes of {}",
            cut.len(),
            looping.len()
        );
        let repair = run
            .conversation
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { text } => Some(text.as_str()),
                _ => None,
            });
        assert!(
            repair.is_some_and(|t| t.contains("runaway")),
            "{kind:?}: {repair:?}"
        );

        // Not watched for, the same answer is kept whole and repaired as a
        // truncated one.
        let server = model_server(kind, script()).await;
        let unwatched = BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                cut_runaway: Some(false),
                ..hosted().settings
            },
            ..hosted()
        };
        let (_, run) = stream_to_end(&search_agent(provider(kind, &server, &unwatched)), "q").await;
        assert!(run.report.repair_used, "{kind:?}");
        assert!(run.conversation.messages.iter().any(|m| matches!(
            m,
            Message::Assistant { text, .. } if text == &looping
        )));
    }
}

/// Under the tool strategy, answer-tool arguments that run away are cut too;
/// a repair that runs away again ends the run as `runaway`, with usage
/// counted for both turns.
#[tokio::test]
async fn an_answer_that_runs_away_twice_ends_the_run_as_runaway() {
    let kind = BackendKind::OpenAiChat;
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            output: OutputChoice::Tool,
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let looping = json!({"name": "Eiffel Tower", "id": "1372-0137200005".repeat(60)});
    let server = model_server(
        kind,
        vec![
            sse_tool_call(kind, "call_1", "final_answer", looping.clone()),
            sse_tool_call(kind, "call_2", "final_answer", looping),
        ],
    )
    .await;
    let run = search_agent(provider(kind, &server, &options))
        .run("q")
        .await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::Runaway));
    assert!(run.report.repair_used);
    // The cut turns' usage is estimated: every request's input, one output
    // token per delta read before the cut.
    assert!(run.report.usage.input_tokens > 0);
    assert!(run.report.usage.output_tokens > 0);
    assert!(run.report.usage.output_tokens < 2 * 60 * 15 / 7);
}
