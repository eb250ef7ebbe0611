//! Server-sent events as each provider API streams them — OpenAI Chat
//! Completions chunks, OpenAI Responses events, Anthropic Messages events,
//! in the shapes their official SDKs type — for the stand-ins that stream
//! ([`sse`] over wiremock, [`faulty`](crate::faulty) over a raw socket).

use serde_json::{Value, json};
use tribunal_runtime::BackendKind;
use wiremock::ResponseTemplate;

/// One server-sent event: its `event:` name, if any, and its data.
pub type Event = (Option<&'static str>, String);

/// The SSE text of one event, as a server writes it.
pub fn event_text((name, data): &Event) -> String {
    match name {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// A wiremock answer streaming `events` whole.
pub fn sse(events: &[Event]) -> ResponseTemplate {
    let body: String = events.iter().map(event_text).collect();
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

/// `text` in pieces of at most 7 characters, as providers split it.
pub fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(7).map(|c| c.iter().collect()).collect()
}

/// One Chat Completions chunk with `delta` and `finish` (`null` or a reason).
pub fn chat_chunk(delta: Value, finish: Value) -> Event {
    let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "test-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    (None, chunk.to_string())
}

/// The end of a Chat Completions stream: the finish chunk, the usage chunk
/// (`stream_options.include_usage`), `[DONE]`.
pub fn chat_end(finish: &str, prompt: u64, completion: u64) -> Vec<Event> {
    let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "test-model", "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}});
    vec![
        chat_chunk(json!({}), json!(finish)),
        (None, usage.to_string()),
        (None, "[DONE]".to_string()),
    ]
}

/// An event named `name` with JSON `data`.
pub fn named(name: &'static str, data: Value) -> Event {
    (Some(name), data.to_string())
}

/// Anthropic's `message_start` of message `id`, with `input` tokens.
pub fn anthropic_start(id: &str, input: u64) -> Event {
    named(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": "test-model",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "output_tokens": 1}}}),
    )
}

/// Anthropic content block `index`: its start with `block`, `text` in
/// pieces as `delta_type` deltas of `field`, its stop.
pub fn anthropic_block(
    index: u64,
    block: Value,
    delta_type: &str,
    field: &str,
    text: &str,
) -> Vec<Event> {
    let mut events = vec![named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )];
    for piece in pieces(text) {
        events.push(named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": delta_type, field: piece}}),
        ));
    }
    events.push(named(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    events
}

/// Anthropic's `message_delta` with the stop reason and `output` tokens,
/// then `message_stop`.
pub fn anthropic_end(stop: &str, output: u64) -> Vec<Event> {
    vec![
        named(
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": output}}),
        ),
        named("message_stop", json!({"type": "message_stop"})),
    ]
}

/// The events of `kind`'s streamed text answer `text` ending with `stop`
/// (`stop`, or a provider's reason such as `length`), usage 80 in and 20
/// out — the streamed form of [`text_turn_with`](crate::wire::text_turn_with),
/// in the event shapes of each API's official SDK.
pub fn text_events(kind: BackendKind, text: &str, stop: &str) -> Vec<Event> {
    let mut events = Vec::new();
    match kind {
        BackendKind::OpenAiChat => {
            events.push(chat_chunk(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for piece in pieces(text) {
                events.push(chat_chunk(json!({"content": piece}), Value::Null));
            }
            events.extend(chat_end(stop, 80, 20));
        }
        BackendKind::OpenAiResponses => {
            let (status, details) = if stop == "stop" {
                ("completed", Value::Null)
            } else {
                ("incomplete", json!({"reason": stop}))
            };
            events.push(named(
                "response.created",
                json!({"type": "response.created",
                "response": {"id": "resp_2", "object": "response", "created_at": 1,
                             "model": "test-model", "status": "in_progress", "output": []}}),
            ));
            events.push(named(
                "response.output_item.added",
                json!({"type": "response.output_item.added",
                "output_index": 0, "item": {"type": "message", "id": "msg_2", "role": "assistant",
                "status": "in_progress", "content": []}}),
            ));
            for piece in pieces(text) {
                events.push(named(
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta",
                    "output_index": 0, "content_index": 0, "item_id": "msg_2", "delta": piece}),
                ));
            }
            let terminal = if status == "completed" {
                "response.completed"
            } else {
                "response.incomplete"
            };
            events.push(named(
                terminal,
                json!({"type": terminal, "response": {
                "id": "resp_2", "object": "response", "created_at": 1, "model": "test-model",
                "status": status, "incomplete_details": details,
                "output": [{"type": "message", "id": "msg_2", "role": "assistant", "status": status,
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": 100}}}),
            ));
            numbered(&mut events);
        }
        BackendKind::Anthropic => {
            events.push(anthropic_start("msg_2", 80));
            let block = json!({"type": "text", "text": ""});
            events.extend(anthropic_block(0, block, "text_delta", "text", text));
            let stop = if stop == "stop" { "end_turn" } else { stop };
            events.extend(anthropic_end(stop, 20));
        }
    }
    events
}

/// Numbers Responses events in order (`sequence_number`), as the API does.
fn numbered(events: &mut [Event]) {
    for (n, (_, data)) in events.iter_mut().enumerate() {
        if let Ok(Value::Object(mut event)) = serde_json::from_str::<Value>(data) {
            event.insert("sequence_number".into(), json!(n));
            *data = Value::Object(event).to_string();
        }
    }
}
