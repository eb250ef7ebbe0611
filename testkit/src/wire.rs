//! The runtime's backend tests: a wiremock "model" that plays
//! provider-shaped answers in order, provider answer builders per API, a fake
//! environment, a provider backend against the server, and a search tool.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tribunal_runtime::{Backend, BackendKind, Tool, ToolError, ToolOutput};
use tribunal_runtime::{BackendOptions, connect_with_env};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The API key every live test puts in the environment.
pub const FAKE_KEY: &str = "sk-test-SECRET-123";

/// Every live backend kind.
pub const ALL: [BackendKind; 3] = BackendKind::ALL;

/// Answers requests with the given responses in order; the last one repeats.
pub struct Sequence(Mutex<VecDeque<ResponseTemplate>>);

impl Sequence {
    /// Plays `responses` in order.
    pub fn new(responses: Vec<ResponseTemplate>) -> Self {
        Sequence(Mutex::new(responses.into()))
    }
}

/// Answers like `inner`, after checking a request as llama.cpp's server
/// does before it renders the chat template (`common/chat.cpp`): every
/// earlier tool call's arguments must parse as JSON, else HTTP 500 with the
/// server's error body (seen live, LIVE.md). Speaks both OpenAI APIs.
pub struct ParsesHistoryArguments(pub Sequence);

impl Respond for ParsesHistoryArguments {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let chat_calls = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
            .map(|c| &c["function"]["arguments"]);
        let responses_calls = body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["type"] == "function_call")
            .map(|item| &item["arguments"]);
        let unparsable = chat_calls
            .chain(responses_calls)
            .filter_map(Value::as_str)
            .find(|a| serde_json::from_str::<Value>(a).is_err());
        match unparsable {
            Some(arguments) => ResponseTemplate::new(500).set_body_json(json!({"error": {
                "code": 500,
                "message": format!(
                    "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] \
                     parse error at line 1, column {}: syntax error while parsing value - \
                     invalid string: missing closing quote; last read: '{arguments}'",
                    arguments.len() + 1
                ),
                "type": "server_error"}})),
            None => self.0.respond(request),
        }
    }
}

impl Respond for Sequence {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let mut queue = self.0.lock().unwrap();
        if queue.len() > 1 {
            queue.pop_front().unwrap()
        } else {
            queue
                .front()
                .cloned()
                .unwrap_or_else(|| ResponseTemplate::new(500))
        }
    }
}

/// The path `kind`'s backend POSTs to.
pub fn endpoint_path(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::OpenAiChat => "/v1/chat/completions",
        BackendKind::OpenAiResponses => "/v1/responses",
        BackendKind::Anthropic => "/v1/messages",
    }
}

/// A mock server answering `kind`'s endpoint with `responses` in order.
pub async fn model_server(kind: BackendKind, responses: Vec<ResponseTemplate>) -> MockServer {
    model_server_with(kind, Sequence::new(responses)).await
}

/// A mock server of its own, on a port of its own: never one of wiremock's
/// pooled servers (`MockServer::start`), which are handed from a finished
/// test to the next — so a request another test's client sends late (a
/// retry, a connection closing under load) cannot land in this test's
/// count. Seen once in CI: `client_errors_are_not_retried` counted two
/// requests for one 400. Every stand-in server of the workspace starts here.
pub async fn own_server() -> MockServer {
    match std::net::TcpListener::bind("127.0.0.1:0") {
        Ok(listener) => MockServer::builder().listener(listener).start().await,
        // No port of its own to be had: the pooled server still serves.
        Err(_) => MockServer::start().await,
    }
}

/// A mock server answering `kind`'s endpoint with `responder`.
pub async fn model_server_with(kind: BackendKind, responder: impl Respond + 'static) -> MockServer {
    serve(endpoint_path(kind), responder).await
}

/// A mock server answering POSTs to `endpoint` with `responder`: every
/// stand-in server of this crate but the batch fake (which answers every
/// path) is one of these.
pub async fn serve(endpoint: &str, responder: impl Respond + 'static) -> MockServer {
    let server = own_server().await;
    Mock::given(method("POST"))
        .and(path(endpoint))
        .respond_with(responder)
        .mount(&server)
        .await;
    server
}

/// `kind`'s base URL on `server`: OpenAI's include `/v1`
/// (`https://api.openai.com/v1`), Anthropic's does not
/// (`https://api.anthropic.com`).
pub fn base_url(kind: BackendKind, server: &MockServer) -> String {
    match kind {
        BackendKind::Anthropic => server.uri(),
        BackendKind::OpenAiChat | BackendKind::OpenAiResponses => format!("{}/v1", server.uri()),
    }
}

/// An environment holding the fake key and the mock server's base URL.
pub fn env_for(kind: BackendKind, server: &MockServer) -> impl Fn(&str) -> Option<String> {
    let base = base_url(kind, server);
    move |name: &str| match name {
        "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" => Some(FAKE_KEY.to_string()),
        "OPENAI_BASE_URL" | "ANTHROPIC_BASE_URL" => Some(base.clone()),
        _ => None,
    }
}

/// The provider backend of `kind` against `server`, connected as
/// [`connect_with_env`] connects it but without retries (a retry wrapper
/// with none left passes every call and answer through as it is) and
/// without recording, caching or replay: the tests that want those wrap
/// it themselves.
///
/// Through `connect_with_env` rather than the provider types, so this
/// crate builds against a runtime without its live backends; a test that
/// calls it needs the runtime's `openai` and `anthropic` features.
pub fn provider(
    kind: BackendKind,
    server: &MockServer,
    options: &BackendOptions,
) -> Arc<dyn Backend> {
    assert!(
        options.record.is_none() && options.replay.is_none() && options.cache.is_none(),
        "wire::provider connects a bare provider: wrap it to record, replay or cache"
    );
    let mut options = options.clone();
    options.settings.max_retries = Some(0);
    connect_with_env(kind, "test-model", &options, &env_for(kind, server)).unwrap()
}

/// The JSON bodies the server received, in order.
pub async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

/// A turn that calls `name` with `args`, in `kind`'s documented shape.
pub fn tool_call_turn(kind: BackendKind, id: &str, name: &str, args: Value) -> ResponseTemplate {
    ok(match kind {
        BackendKind::Anthropic => json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": "Let me search."},
                        {"type": "tool_use", "id": id, "name": name, "input": args}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 50, "output_tokens": 10}
        }),
        _ => openai_tool_call(kind, id, name, &args.to_string(), false),
    })
}

/// A turn of an OpenAI API whose call of `name` the output-token limit cut:
/// its argument text `cut` ends mid-value.
pub fn cut_tool_call_turn(kind: BackendKind, id: &str, name: &str, cut: &str) -> ResponseTemplate {
    ok(openai_tool_call(kind, id, name, cut, true))
}

/// An OpenAI answer body with one call of `name` with argument text
/// `arguments`; `cut` says the output-token limit ended it.
fn openai_tool_call(kind: BackendKind, id: &str, name: &str, arguments: &str, cut: bool) -> Value {
    match kind {
        BackendKind::OpenAiChat => json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": if cut { "length" } else { "tool_calls" },
                "message": {"role": "assistant", "content": null, "refusal": null,
                "tool_calls": [{"id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
        }),
        BackendKind::OpenAiResponses => {
            let (status, details) = if cut {
                ("incomplete", json!({"reason": "max_output_tokens"}))
            } else {
                ("completed", Value::Null)
            };
            json!({
                "id": "resp_1", "object": "response", "status": status, "model": "test-model",
                "incomplete_details": details,
                "output": [{"type": "function_call", "id": "fc_1", "call_id": id, "name": name,
                            "arguments": arguments, "status": status}],
                "usage": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}
            })
        }
        BackendKind::Anthropic => unreachable!("an OpenAI API"),
    }
}

/// A final text turn ending with `stop` (provider vocabulary) in `kind`'s shape.
pub fn text_turn_with(kind: BackendKind, text: &str, stop: &str) -> ResponseTemplate {
    ok(match kind {
        BackendKind::OpenAiChat => json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": stop,
                "message": {"role": "assistant", "content": text, "refusal": null}}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}
        }),
        BackendKind::OpenAiResponses => {
            let (status, details) = if stop == "stop" {
                ("completed", Value::Null)
            } else {
                ("incomplete", json!({"reason": stop}))
            };
            json!({
                "id": "resp_2", "object": "response", "status": status,
                "incomplete_details": details,
                "output": [{"type": "message", "id": "msg_2", "role": "assistant", "status": status,
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 80, "output_tokens": 20, "total_tokens": 100}
            })
        }
        BackendKind::Anthropic => json!({
            "id": "msg_2", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": if stop == "stop" { "end_turn" } else { stop }, "stop_sequence": null,
            "usage": {"input_tokens": 80, "output_tokens": 20}
        }),
    })
}

/// A final text turn that ended normally.
pub fn text_turn(kind: BackendKind, text: &str) -> ResponseTemplate {
    text_turn_with(kind, text, "stop")
}

/// A length-truncated turn.
pub fn truncated_turn(kind: BackendKind, text: &str) -> ResponseTemplate {
    let stop = match kind {
        BackendKind::OpenAiChat => "length",
        BackendKind::OpenAiResponses => "max_output_tokens",
        BackendKind::Anthropic => "max_tokens",
    };
    text_turn_with(kind, text, stop)
}

/// A refusal in `kind`'s shape.
pub fn refusal_turn(kind: BackendKind) -> ResponseTemplate {
    ok(match kind {
        BackendKind::OpenAiChat => json!({
            "id": "chatcmpl-3", "object": "chat.completion", "created": 3, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": null, "refusal": "I'm sorry, I can't help with that."}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}
        }),
        BackendKind::OpenAiResponses => json!({
            "id": "resp_3", "object": "response", "status": "completed",
            "output": [{"type": "message", "id": "msg_3", "role": "assistant", "status": "completed",
                        "content": [{"type": "refusal", "refusal": "I'm sorry, I can't help with that."}]}],
            "usage": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}
        }),
        BackendKind::Anthropic => json!({
            "id": "msg_3", "type": "message", "role": "assistant", "model": "test-model",
            "content": [], "stop_reason": "refusal", "stop_sequence": null,
            "usage": {"input_tokens": 5, "output_tokens": 5}
        }),
    })
}

/// An error answer with `status` and the provider's error body.
pub fn error_turn(kind: BackendKind, status: u16, error_type: &str) -> ResponseTemplate {
    let body = match kind {
        BackendKind::Anthropic => {
            json!({"type": "error", "error": {"type": error_type, "message": "request failed"},
                                          "request_id": "req_1"})
        }
        _ => {
            json!({"error": {"message": "request failed", "type": error_type, "param": null, "code": null}})
        }
    };
    ResponseTemplate::new(status).set_body_json(body)
}

/// The landmark agent of the backend tests: the landmark schema, the
/// [`Search`] tool and `system`.
pub fn landmark_agent(backend: Arc<dyn Backend>, system: &str) -> tribunal_runtime::Agent {
    tribunal_runtime::Agent::new(backend, Arc::new(crate::agents::landmark_schema()))
        .unwrap()
        .with_system(system)
        .with_tools(tribunal_runtime::ToolBox::new().with(Search))
}

/// The system prompt of [`search_agent`].
pub const SEARCH_SYSTEM: &str = "You answer questions about landmarks. Use the search tool.";

/// [`landmark_agent`] told to use the search tool.
pub fn search_agent(backend: Arc<dyn Backend>) -> tribunal_runtime::Agent {
    landmark_agent(backend, SEARCH_SYSTEM)
}

/// What `auto` picks on the hosted APIs: native, with the schema on tool
/// turns too (the stand-in servers run on localhost, where `auto` would
/// pick the tool strategy for the OpenAI APIs).
pub fn hosted() -> BackendOptions {
    BackendOptions::from(tribunal_runtime::BackendSettings {
        output: tribunal_runtime::OutputChoice::Native,
        schema_on_tool_turns: Some(true),
        ..Default::default()
    })
}

/// Fixed search results for the landmark question.
pub struct Search;

impl Tool for Search {
    fn name(&self) -> &str {
        "search"
    }
    fn description(&self) -> &str {
        "Searches the offline corpus and returns numbered passages."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string"}},
               "required": ["query"], "additionalProperties": false})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async {
            Ok(ToolOutput::Text(
                "[1] The Eiffel Tower, completed in 1889, is 330 m tall.".into(),
            ))
        })
    }
}

/// Replaces the (separately compiled) wire schema in a body with a marker, so
/// the snapshots pin the request shape, not the schema compiler's output.
pub fn redact_schema(mut body: Value) -> Value {
    for pointer in [
        "/response_format/json_schema/schema",
        "/text/format/schema",
        "/output_config/format/schema",
    ] {
        if let Some(slot) = body.pointer_mut(pointer) {
            assert!(slot.is_object(), "the wire schema is an object");
            *slot = json!("[wire schema]");
        }
    }
    // The answer tool's parameters are the wire schema too.
    if let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools {
            let slot = if tool.pointer("/function/name") == Some(&json!("final_answer")) {
                tool.pointer_mut("/function/parameters")
            } else if tool.get("name") == Some(&json!("final_answer")) {
                match tool.get("input_schema") {
                    Some(_) => tool.get_mut("input_schema"),
                    None => tool.get_mut("parameters"),
                }
            } else {
                None
            };
            if let Some(slot) = slot {
                assert!(slot.is_object(), "the wire schema is an object");
                *slot = json!("[wire schema]");
            }
        }
    }
    body
}
