//! The agent loop against a wiremock "model" on each live backend: exact
//! request bodies (snapshots), provider-shaped answers mapped to outcomes.

use serde_json::{Value, json};
use tribunal_runtime::BackendOptions;
use tribunal_runtime::ToolChoice;
use tribunal_runtime::{BackendErrorKind, ModelRequest, OutputFormat};
use tribunal_runtime::{BackendKind, ErrorCode, OutputChoice, connect_with_env};
use tribunal_testkit::agents::eiffel;
use tribunal_testkit::wire::*;

/// Tool call, an invalid final answer, then a repair that fixes it: the
/// structured_output scenario end to end on one backend.
async fn tool_then_repair(kind: BackendKind, options: &BackendOptions) -> Vec<Value> {
    let invalid = json!({"name": "Eiffel Tower", "year": 1889, "height_m": 330});
    let server = model_server(
        kind,
        vec![
            tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
            text_turn(kind, &invalid.to_string()),
            text_turn(kind, &eiffel().to_string()),
        ],
    )
    .await;
    let env = env_for(kind, &server);
    let backend = connect_with_env(kind, "test-model", options, &env).unwrap();
    let run = search_agent(backend)
        .run("Give me the landmark record of the Eiffel Tower.")
        .await;
    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{:?}",
        run.report
    );
    assert!(run.report.repair_used);
    assert_eq!(run.report.tool_calls.len(), 1);
    assert_eq!(run.report.usage.total(), 60 + 100 + 100);
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    bodies.into_iter().map(redact_schema).collect()
}

#[tokio::test]
async fn openai_chat_tool_call_then_repair() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let bodies = tool_then_repair(BackendKind::OpenAiChat, &hosted()).await;
    assert!(
        bodies[2].get("tools").is_none(),
        "the repair offers no tools"
    );
    insta::assert_json_snapshot!("backend_openai_chat_requests", bodies);
}

#[tokio::test]
async fn openai_responses_tool_call_then_repair() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let bodies = tool_then_repair(BackendKind::OpenAiResponses, &hosted()).await;
    assert!(
        bodies[2].get("tools").is_none(),
        "the repair offers no tools"
    );
    insta::assert_json_snapshot!("backend_openai_responses_requests", bodies);
}

#[tokio::test]
async fn anthropic_tool_call_then_repair() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let bodies = tool_then_repair(BackendKind::Anthropic, &hosted()).await;
    assert!(
        bodies[2].get("tools").is_none(),
        "the repair offers no tools"
    );
    assert_eq!(bodies[0]["max_tokens"], 8192);
    insta::assert_json_snapshot!("backend_anthropic_requests", bodies);
}

#[tokio::test]
async fn prompt_mode_writes_the_schema_into_the_system_prompt() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            output: OutputChoice::Prompt,
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let bodies = tool_then_repair(BackendKind::OpenAiChat, &options).await;
    for body in &bodies {
        assert!(body.get("response_format").is_none());
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("\"sources\""), "{system}");
    }
    insta::assert_json_snapshot!("backend_openai_chat_prompt_mode_first_request", bodies[0]);
}

#[tokio::test]
async fn schema_can_stay_off_tool_turns() {
    for kind in ALL {
        let options = BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Native,
                schema_on_tool_turns: Some(false),
                extra_body: json!({"output_config": {"effort": "low"}, "temperature": 0})
                    .as_object()
                    .unwrap()
                    .clone(),
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let bodies = tool_then_repair(kind, &options).await;
        let format = |b: &Value| {
            b.pointer("/response_format")
                .or(b.pointer("/text/format"))
                .or(b.pointer("/output_config/format"))
                .cloned()
        };
        assert_eq!(
            format(&bodies[0]),
            None,
            "{kind}: tool turn without the format"
        );
        assert!(
            format(&bodies[2]).is_some(),
            "{kind}: the repair carries it"
        );
        assert_eq!(bodies[0]["temperature"], 0);
        if kind == BackendKind::Anthropic {
            // Merged, not overwritten.
            assert_eq!(bodies[2]["output_config"]["effort"], "low");
            assert_eq!(bodies[2]["output_config"]["format"]["type"], "json_schema");
        }
    }
}

async fn one_turn_outcome(
    kind: BackendKind,
    answer: wiremock::ResponseTemplate,
) -> Option<ErrorCode> {
    let server = model_server(kind, vec![answer]).await;
    let env = env_for(kind, &server);
    let backend = connect_with_env(kind, "test-model", &BackendOptions::default(), &env).unwrap();
    let run = search_agent(backend)
        .run("Give me the landmark record.")
        .await;
    run.report.outcome.error_code()
}

#[tokio::test]
async fn refusals_truncations_and_errors_map_to_codes() {
    for kind in ALL {
        assert_eq!(
            one_turn_outcome(kind, refusal_turn(kind)).await,
            Some(ErrorCode::Refused),
            "{kind}"
        );
        assert_eq!(
            one_turn_outcome(kind, truncated_turn(kind, "{\"name\": \"Eiff")).await,
            Some(ErrorCode::Truncated),
            "{kind}"
        );
        assert_eq!(
            one_turn_outcome(kind, error_turn(kind, 400, "invalid_request_error")).await,
            Some(ErrorCode::BackendError),
            "{kind}"
        );
        // A first answer that is valid ends the run at once.
        assert_eq!(
            one_turn_outcome(kind, text_turn(kind, &eiffel().to_string())).await,
            None,
            "{kind}"
        );
    }
}

#[tokio::test]
async fn error_bodies_become_backend_errors_with_status_and_type() {
    for kind in ALL {
        let server = model_server(kind, vec![error_turn(kind, 404, "not_found_error")]).await;
        let backend = provider(kind, &server, &BackendOptions::default());
        let request = ModelRequest {
            conversation: tribunal_runtime::Conversation::new(None, "hi").into(),
            tools: Vec::new().into(),
            tool_choice: ToolChoice::Auto,
            output: OutputFormat::Text,
            max_output_tokens: Some(16),
        };
        let err = backend.complete(&request).await.unwrap_err();
        assert_eq!(err.kind, BackendErrorKind::Http, "{kind}");
        assert_eq!(err.status, Some(404));
        assert_eq!(err.provider_type.as_deref(), Some("not_found_error"));
        assert!(err.message.contains("request failed"), "{}", err.message);
        assert!(
            !err.message.contains("hi\""),
            "no request content: {}",
            err.message
        );
    }
}

/// A run ended by a provider error keeps the code, plus the failure's kind,
/// status and provider error type (a plain identifier) — never its message.
#[tokio::test]
async fn a_run_ended_by_a_provider_error_reports_status_and_type_not_the_message() {
    for kind in ALL {
        let server = model_server(kind, vec![error_turn(kind, 404, "not_found_error")]).await;
        let run = search_agent(provider(kind, &server, &BackendOptions::default()))
            .run("hi")
            .await;
        assert_eq!(
            run.report.outcome.error_code(),
            Some(tribunal_runtime::ErrorCode::BackendError)
        );
        let failure = run.report.backend_failure.clone().unwrap();
        assert_eq!(failure.kind, BackendErrorKind::Http, "{kind}");
        assert_eq!(failure.status, Some(404));
        assert_eq!(failure.provider_type.as_deref(), Some("not_found_error"));
        // Beside the code: tribunal's own detail, naming the endpoint.
        let url = format!("{}{}", server.uri(), endpoint_path(kind));
        assert_eq!(
            failure.detail.as_deref(),
            Some(&*format!("from {url}")),
            "{kind}"
        );
        assert_eq!(
            failure.to_string(),
            format!("HTTP 404 not_found_error: from {url}")
        );
        let stored = serde_json::to_string(&run.report).unwrap();
        assert!(!stored.contains("request failed"), "{stored}");

        // A provider "type" that is not a plain identifier is not stored.
        let odd = "<script>alert(1)</script> with the model's words";
        let server = model_server(kind, vec![error_turn(kind, 400, odd)]).await;
        let run = search_agent(provider(kind, &server, &BackendOptions::default()))
            .run("hi")
            .await;
        let failure = run.report.backend_failure.clone().unwrap();
        assert_eq!((failure.status, failure.provider_type), (Some(400), None));
    }
}

#[tokio::test]
async fn compatible_server_quirks_are_tolerated() {
    // llama.cpp's server: `content: ""` beside tool calls, extra `timings`,
    // no `created`/`object`/`id`.
    let kind = BackendKind::OpenAiChat;
    let quirky = wiremock::ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
            "role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "id": "Yx2", "function":
                {"name": "search", "arguments": "{\"query\":\"Eiffel\"}"}}]}}],
        "model": "qwen2.5-0.5b", "usage": {"completion_tokens": 9, "prompt_tokens": 99, "total_tokens": 108},
        "timings": {"prompt_n": 99, "prompt_ms": 120.5, "predicted_n": 9, "predicted_ms": 80.1}
    }));
    let server = model_server(kind, vec![quirky, text_turn(kind, &eiffel().to_string())]).await;
    let env = env_for(kind, &server);
    let backend = connect_with_env(kind, "test-model", &BackendOptions::default(), &env).unwrap();
    let run = search_agent(backend).run("Eiffel Tower?").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    let bodies = bodies(&server).await;
    // The tool-call turn goes back with null content and its call.
    assert_eq!(bodies[1]["messages"][2]["tool_calls"][0]["id"], "Yx2");
    assert_eq!(bodies[1]["messages"][3]["role"], "tool");
}

/// Anthropic extended thinking with tool use: the API requires the turn's
/// thinking blocks — unmodified, signature included, before the tool_use —
/// on the next request. They travel back verbatim; other blocks do not.
#[tokio::test]
async fn anthropic_thinking_blocks_go_back_unmodified_before_the_tool_call() {
    let kind = BackendKind::Anthropic;
    let thinking = json!({"type": "thinking", "thinking": "I should search first.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"});
    let redacted = json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"});
    let first = wiremock::ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
        "content": [thinking, redacted,
            {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"query": "Eiffel"}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 50, "output_tokens": 20}
    }));
    let server = model_server(kind, vec![first, text_turn(kind, &eiffel().to_string())]).await;
    let backend = provider(kind, &server, &BackendOptions::default());
    let run = search_agent(backend).run("Eiffel Tower?").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    let bodies = bodies(&server).await;
    let assistant = &bodies[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"][0], thinking);
    assert_eq!(assistant["content"][1], redacted);
    assert_eq!(assistant["content"][2]["type"], "tool_use");
    assert_eq!(assistant["content"].as_array().unwrap().len(), 3);
    // Kept in the conversation, where transcripts and follow-ups see it.
    match &run.conversation.messages[1] {
        tribunal_runtime::Message::Assistant { reasoning, .. } => {
            assert_eq!(reasoning, &vec![thinking.clone(), redacted.clone()])
        }
        other => panic!("{other:?}"),
    }
}

/// The OpenAI backends never send reasoning blocks of another provider.
#[tokio::test]
async fn reasoning_blocks_are_not_sent_to_openai() {
    for kind in [BackendKind::OpenAiChat, BackendKind::OpenAiResponses] {
        let server = model_server(kind, vec![text_turn(kind, "{}")]).await;
        let backend = provider(kind, &server, &BackendOptions::default());
        let mut conversation = tribunal_runtime::Conversation::new(None, "hi");
        conversation
            .messages
            .push(tribunal_runtime::Message::Assistant {
                text: "earlier".into(),
                tool_calls: Vec::new(),
                reasoning: vec![json!({"type": "thinking", "thinking": "SECRET-THOUGHT"})],
            });
        conversation.push_user("again");
        let request = ModelRequest {
            conversation: conversation.into(),
            tools: Vec::new().into(),
            tool_choice: ToolChoice::Auto,
            output: OutputFormat::Text,
            max_output_tokens: Some(16),
        };
        backend.complete(&request).await.unwrap();
        let body = bodies(&server).await[0].to_string();
        assert!(!body.contains("SECRET-THOUGHT"), "{kind}: {body}");
        assert!(body.contains("earlier"), "{kind}: {body}");
    }
}

/// One Eiffel Tower run on `kind` against `server` with `options` and `budget`.
async fn eiffel_run(
    kind: BackendKind,
    server: &wiremock::MockServer,
    options: &BackendOptions,
    budget: tribunal_runtime::Budget,
) -> tribunal_runtime::Run {
    let backend = connect_with_env(kind, "test-model", options, &env_for(kind, server)).unwrap();
    search_agent(backend)
        .with_budget(budget)
        .run("Give me the landmark record of the Eiffel Tower.")
        .await
}

/// The tool strategy on each API: a search, an answer-tool call with a wrong
/// field, the repair as that call's result with only the answer tool offered
/// and a call required, then the valid answer call. No request carries the
/// structured-output field.
#[tokio::test]
async fn tool_strategy_answers_through_the_answer_tool_on_every_api() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let invalid =
        json!({"name": "Eiffel Tower", "year": "1889", "height_m": 330, "sources": ["1"]});
    for kind in ALL {
        let server = model_server(
            kind,
            vec![
                tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
                tool_call_turn(kind, "call_2", "final_answer", invalid.clone()),
                tool_call_turn(kind, "call_3", "final_answer", eiffel()),
            ],
        )
        .await;
        let options = BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Tool,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let budget = tribunal_runtime::Budget {
            max_tool_calls: Some(1),
            ..Default::default()
        };
        let run = eiffel_run(kind, &server, &options, budget).await;
        assert_eq!(
            run.report.outcome.value(),
            Some(&eiffel()),
            "{kind}: {:?}",
            run.report
        );
        assert!(run.report.repair_used);
        assert_eq!(
            run.report.tool_calls.len(),
            1,
            "{kind}: the answer tool is no tool call"
        );
        let bodies: Vec<Value> = bodies(&server)
            .await
            .into_iter()
            .map(redact_schema)
            .collect();
        assert_eq!(bodies.len(), 3);
        for body in &bodies {
            for field in ["response_format", "text", "output_config"] {
                assert!(body.get(field).is_none(), "{kind}: no {field}");
            }
        }
        let tool_names = |b: &Value| -> Vec<String> {
            b["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    t.pointer("/function/name")
                        .or(t.get("name"))
                        .and_then(Value::as_str)
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        assert_eq!(tool_names(&bodies[0]), ["final_answer", "search"], "{kind}");
        assert_eq!(tool_names(&bodies[2]), ["final_answer"], "{kind}");
        let required = match kind {
            BackendKind::Anthropic => json!({"type": "any"}),
            _ => json!("required"),
        };
        assert_eq!(bodies[2]["tool_choice"], required, "{kind}");
        assert!(
            bodies[0].get("tool_choice").is_none(),
            "{kind}: auto is the default"
        );
        insta::assert_json_snapshot!(
            format!(
                "backend_{}_tool_strategy_requests",
                kind.as_str().replace('-', "_")
            ),
            bodies
        );
    }
}

/// `auto` on a base URL that is not a hosted API (every stand-in here runs on
/// localhost) is the tool strategy on every API.
#[tokio::test]
async fn auto_on_a_compatible_server_sends_no_schema_beside_tools() {
    for kind in ALL {
        let server = model_server(
            kind,
            vec![
                tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
                text_turn(kind, &eiffel().to_string()),
            ],
        )
        .await;
        let backend = connect_with_env(
            kind,
            "test-model",
            &BackendOptions::default(),
            &env_for(kind, &server),
        )
        .unwrap();
        let run = search_agent(backend).run("Eiffel Tower?").await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{kind}");
        let first = &bodies(&server).await[0];
        for field in ["response_format", "text", "output_config"] {
            assert!(first.get(field).is_none(), "{kind}: {field}");
        }
        assert!(first.to_string().contains("final_answer"), "{kind}");
    }
}

/// The finalize request (a budget ended the tool phase) and the repair
/// request after it, under the tool strategy and under native structured
/// output: both tell the model what to do.
#[tokio::test]
async fn finalize_and_repair_requests_say_what_to_do() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let kind = BackendKind::OpenAiChat;
    let invalid =
        json!({"name": "Eiffel Tower", "year": "1889", "height_m": 330, "sources": ["1"]});
    for (label, options) in [("tool", BackendOptions::default()), ("native", hosted())] {
        let (bad, good) = match label {
            "tool" => (
                tool_call_turn(kind, "call_3", "final_answer", invalid.clone()),
                tool_call_turn(kind, "call_4", "final_answer", eiffel()),
            ),
            _ => (
                text_turn(kind, &invalid.to_string()),
                text_turn(kind, &eiffel().to_string()),
            ),
        };
        let server = model_server(
            kind,
            vec![
                tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
                tool_call_turn(kind, "call_2", "search", json!({"query": "Eiffel height"})),
                bad,
                good,
            ],
        )
        .await;
        let budget = tribunal_runtime::Budget {
            max_tool_calls: Some(1),
            on_budget: tribunal_runtime::OnBudget::Finalize,
            ..Default::default()
        };
        let run = eiffel_run(kind, &server, &options, budget).await;
        assert_eq!(
            run.report.outcome.value(),
            Some(&eiffel()),
            "{label}: {:?}",
            run.report
        );
        assert_eq!(
            run.report.finalized_after,
            Some(ErrorCode::MaxToolCallsExceeded)
        );
        let bodies: Vec<Value> = bodies(&server)
            .await
            .into_iter()
            .map(redact_schema)
            .collect();
        assert_eq!(bodies.len(), 4);
        let finalize = &bodies[2];
        let last = finalize["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["role"], "user", "{label}");
        assert!(
            last["content"]
                .as_str()
                .unwrap()
                .starts_with("No more tools can be called"),
            "{label}: {last}"
        );
        insta::assert_json_snapshot!(format!("backend_openai_chat_finalize_{label}"), finalize);
        insta::assert_json_snapshot!(
            format!("backend_openai_chat_repair_after_finalize_{label}"),
            bodies[3]
        );
    }
}

/// An answer cut by the output-token limit (`length`, `max_output_tokens`,
/// `max_tokens`) is the model's invalid answer: it gets the one repair, is
/// not retried, and is no backend error.
#[tokio::test]
async fn a_cut_answer_gets_the_repair_on_every_api() {
    for kind in ALL {
        let server = model_server(
            kind,
            vec![
                truncated_turn(
                    kind,
                    "{\"name\": \"Eiffel Tower\", \"sources\": [\"1372-0137200",
                ),
                text_turn(kind, &eiffel().to_string()),
            ],
        )
        .await;
        let run = eiffel_run(kind, &server, &hosted(), Default::default()).await;
        repaired_once(kind, &run, &server).await;
    }
}

/// Checks that `run` ended with the Eiffel Tower record after the one
/// repair, in two requests (no retry); returns their bodies.
async fn repaired_once(
    kind: BackendKind,
    run: &tribunal_runtime::Run,
    server: &wiremock::MockServer,
) -> Vec<Value> {
    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{kind}: {:?}",
        run.report
    );
    assert!(run.report.repair_used, "{kind}");
    let bodies = bodies(server).await;
    assert_eq!(bodies.len(), 2, "{kind}: no retry");
    bodies
}

/// A final-answer call cut by the token limit gets the one repair on a
/// server that parses the history's tool-call arguments, as llama.cpp's
/// does: the cut call goes back with arguments `{}`, so the repair request
/// is not refused with HTTP 500 (seen live: the same 500 on every retry,
/// then `backend_error`).
#[tokio::test]
async fn a_cut_answer_call_gets_the_repair_on_a_server_that_parses_the_history() {
    let cut = "{\"name\": \"Eiffel Tower\", \"year\": 1889, \"height_m\": 330, \
               \"sources\": [\"1372-01372000053";
    for kind in [BackendKind::OpenAiChat, BackendKind::OpenAiResponses] {
        let server = model_server_with(
            kind,
            ParsesHistoryArguments(Sequence::new(vec![
                cut_tool_call_turn(kind, "call_1", "final_answer", cut),
                tool_call_turn(kind, "call_2", "final_answer", eiffel()),
            ])),
        )
        .await;
        let options = BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Tool,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let run = eiffel_run(kind, &server, &options, Default::default()).await;
        let bodies = repaired_once(kind, &run, &server).await;
        let sent_back = match kind {
            BackendKind::OpenAiChat => bodies[1]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|m| m.pointer("/tool_calls/0/function/arguments")),
            _ => bodies[1]["input"]
                .as_array()
                .unwrap()
                .iter()
                .find(|item| item["type"] == "function_call")
                .map(|item| &item["arguments"]),
        };
        assert_eq!(sent_back, Some(&json!("{}")), "{kind}");
    }
}
