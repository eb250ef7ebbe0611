//! [`ChatStream`]: OpenAI Chat Completions' `chat.completion.chunk` events
//! folded back into a `chat.completion` body.
//!
//! Each chunk carries deltas of choice 0: `content`, `refusal`,
//! `reasoning_content` (llama.cpp, vLLM and others), and `tool_calls` pieces
//! keyed by `index` (the id and name in the first piece, the arguments in
//! many). `finish_reason` comes on the last chunk of the choice; `usage` on
//! a final chunk without choices when `stream_options.include_usage` asked
//! for it (some servers send it on every chunk: the last one wins).
//! `data: [DONE]` ends the stream.

use super::{Flow, StreamFold, broke_off, error_event, error_fields, event_json};
use crate::backend::BackendError;
use crate::backend::delta::Delta;
use crate::backend::kind::Provider;
use serde_json::{Map, Value, json};

const PROVIDER: &str = Provider::OPENAI_CHAT.name;

/// The chunks read so far of one Chat Completions stream.
#[derive(Debug, Default)]
pub struct ChatStream {
    /// `id`, `model`, `created`, … of the first chunk, kept for the body.
    head: Map<String, Value>,
    content: Option<String>,
    refusal: Option<String>,
    reasoning: Option<String>,
    calls: Vec<CallParts>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    done: bool,
}

#[derive(Debug, Default)]
struct CallParts {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

impl StreamFold for ChatStream {
    fn push(
        &mut self,
        _event: &str,
        data: &str,
        deltas: &mut Vec<Delta>,
    ) -> Result<Flow, BackendError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Flow::End);
        }
        let chunk = event_json(PROVIDER, data)?;
        if let Some(error) = chunk.get("error") {
            return Err(error_event(PROVIDER, error_fields(error)));
        }
        if self.head.is_empty() {
            for key in ["id", "model", "created", "system_fingerprint"] {
                if let Some(v) = chunk.get(key) {
                    self.head.insert(key.to_string(), v.clone());
                }
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        // One choice is asked for; others (n > 1 set through extra body) are
        // not part of the turn, as in the unstreamed decode.
        let Some(choice) = choices
            .into_iter()
            .flatten()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            return Ok(Flow::More);
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(Flow::More);
        };
        let text = |key: &str| {
            delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        if let Some(piece) = text("content") {
            self.content.get_or_insert_default().push_str(piece);
            deltas.push(Delta::Text(piece.to_string()));
        }
        if let Some(piece) = text("refusal") {
            self.refusal.get_or_insert_default().push_str(piece);
        }
        if let Some(piece) = text("reasoning_content") {
            self.reasoning.get_or_insert_default().push_str(piece);
        }
        for piece in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.push_call_piece(piece, deltas);
        }
        Ok(Flow::More)
    }

    fn usage_so_far(&self) -> Option<Value> {
        self.usage.clone()
    }

    fn finish(self) -> Result<Value, BackendError> {
        // Servers that omit `[DONE]` still end the choice with a reason.
        if !self.done && self.finish_reason.is_none() {
            return Err(broke_off(
                PROVIDER,
                "the stream ended before the answer was complete",
                None,
            ));
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(self.content));
        if let Some(refusal) = self.refusal {
            message.insert("refusal".into(), json!(refusal));
        }
        if let Some(reasoning) = self.reasoning {
            message.insert("reasoning_content".into(), json!(reasoning));
        }
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_iter()
                .map(|c| {
                    let mut call = json!({
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    });
                    if let Some(id) = c.id {
                        call["id"] = json!(id);
                    }
                    call
                })
                .collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let mut body = self.head;
        body.insert("object".into(), json!("chat.completion"));
        body.insert(
            "choices".into(),
            json!([{
                "index": 0,
                "message": message,
                "finish_reason": self.finish_reason,
            }]),
        );
        if let Some(usage) = self.usage {
            body.insert("usage".into(), usage);
        }
        Ok(Value::Object(body))
    }
}

impl ChatStream {
    /// Adds one `tool_calls` piece: a new call when its `index` is new, more
    /// arguments of a known one otherwise.
    fn push_call_piece(&mut self, piece: &Value, deltas: &mut Vec<Delta>) {
        let index = piece
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(self.calls.len() as u64);
        let position = match self.calls.iter().position(|c| c.index == index) {
            Some(p) => p,
            None => {
                self.calls.push(CallParts {
                    index,
                    ..CallParts::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = piece
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            call.id = Some(id.to_string());
        }
        let function = piece.get("function");
        let field = |key: &str| function.and_then(|f| f.get(key));
        // The name comes whole in the call's first piece; a server that
        // repeats it on later pieces does not lengthen it.
        if let Some(name) = field("name").and_then(Value::as_str)
            && call.name.is_empty()
        {
            call.name = name.to_string();
        }
        let fragment = match field("arguments") {
            Some(Value::String(s)) => s.clone(),
            // A server that sends the arguments as an object sends them whole.
            Some(v) if !v.is_null() => v.to_string(),
            _ => String::new(),
        };
        if !fragment.is_empty() {
            call.arguments.push_str(&fragment);
            deltas.push(Delta::ToolArguments {
                index: position,
                name: call.name.clone(),
                fragment,
            });
        }
    }
}
