//! [`MessagesStream`]: Anthropic Messages' stream events folded back into a
//! message body.
//!
//! `message_start` carries the message without content (and the input
//! usage); `content_block_start` opens block `index`; `content_block_delta`
//! adds to it (`text_delta`, `input_json_delta` — a tool call's arguments as
//! partial JSON text, parsed when the block stops —, `thinking_delta`,
//! `signature_delta`); `message_delta` sets `stop_reason` and the usage so
//! far (cumulative); `message_stop` ends it. `ping` is ignored and `error`
//! ends the stream with the provider's error.

use super::{Flow, StreamFold, broke_off, error_event, error_fields, event_json};
use crate::backend::BackendError;
use crate::backend::delta::Delta;
use crate::backend::kind::Provider;
use serde_json::{Map, Value};

const PROVIDER: &str = Provider::ANTHROPIC.name;

/// The events read so far of one Messages stream.
#[derive(Debug, Default)]
pub struct MessagesStream {
    /// The message of `message_start`, updated by `message_delta`.
    message: Option<Map<String, Value>>,
    /// The content blocks by index, with a tool call's arguments text.
    blocks: Vec<Block>,
    stopped: bool,
}

#[derive(Debug)]
struct Block {
    index: u64,
    value: Value,
    /// `input_json_delta` pieces of a `tool_use` block.
    partial_json: String,
}

impl StreamFold for MessagesStream {
    fn push(
        &mut self,
        event: &str,
        data: &str,
        deltas: &mut Vec<Delta>,
    ) -> Result<Flow, BackendError> {
        let value = event_json(PROVIDER, data)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "message_start" => {
                let message = value.get("message").and_then(Value::as_object);
                self.message = Some(message.cloned().unwrap_or_default());
            }
            "content_block_start" => {
                let index = index_of(&value).unwrap_or(self.blocks.len() as u64);
                let block = value.get("content_block").cloned().unwrap_or(Value::Null);
                self.blocks.push(Block {
                    index,
                    value: block,
                    partial_json: String::new(),
                });
            }
            "content_block_delta" => self.add_delta(&value, deltas),
            "content_block_stop" => {
                let index = index_of(&value);
                if let Some(block) = self.blocks.iter_mut().find(|b| Some(b.index) == index) {
                    block.close();
                }
            }
            "message_delta" => {
                let message = self.message.get_or_insert_default();
                if let Some(delta) = value.get("delta").and_then(Value::as_object) {
                    for (key, v) in delta {
                        message.insert(key.clone(), v.clone());
                    }
                }
                // The usage of `message_delta` is cumulative: its fields
                // replace those of `message_start`, the others stay.
                if let Some(usage) = value.get("usage").and_then(Value::as_object) {
                    let entry = message
                        .entry("usage")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(total) = entry {
                        for (key, v) in usage.iter().filter(|(_, v)| !v.is_null()) {
                            total.insert(key.clone(), v.clone());
                        }
                    }
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Flow::End);
            }
            "error" => {
                let error = value.get("error").unwrap_or(&Value::Null);
                return Err(error_event(PROVIDER, error_fields(error)));
            }
            _ => {}
        }
        Ok(Flow::More)
    }

    /// `message_start`'s usage (the input), updated by each
    /// `message_delta`.
    fn usage_so_far(&self) -> Option<Value> {
        self.message.as_ref()?.get("usage").cloned()
    }

    fn finish(self) -> Result<Value, BackendError> {
        let Some(mut message) = self.message.filter(|_| self.stopped) else {
            return Err(broke_off(
                PROVIDER,
                "the stream ended before the message was complete",
                None,
            ));
        };
        let mut blocks = self.blocks;
        blocks.sort_by_key(|b| b.index);
        let content = blocks
            .into_iter()
            .map(|mut b| {
                b.close();
                b.value
            })
            .collect();
        message.insert("content".into(), Value::Array(content));
        Ok(Value::Object(message))
    }
}

impl MessagesStream {
    /// Adds one `content_block_delta` to its block.
    fn add_delta(&mut self, value: &Value, deltas: &mut Vec<Delta>) {
        let index = index_of(value);
        let Some(position) = self.blocks.iter().position(|b| Some(b.index) == index) else {
            return;
        };
        let Some(delta) = value.get("delta") else {
            return;
        };
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
        let block = &mut self.blocks[position];
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                append(&mut block.value, "text", text("text"));
                if !text("text").is_empty() {
                    deltas.push(Delta::Text(text("text").to_string()));
                }
            }
            Some("input_json_delta") => {
                block.partial_json.push_str(text("partial_json"));
                if !text("partial_json").is_empty() {
                    let calls_before = self.blocks[..position]
                        .iter()
                        .filter(|b| b.is_tool_use())
                        .count();
                    let block = &self.blocks[position];
                    deltas.push(Delta::ToolArguments {
                        index: calls_before,
                        name: block
                            .value
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        fragment: text("partial_json").to_string(),
                    });
                }
            }
            Some("thinking_delta") => append(&mut block.value, "thinking", text("thinking")),
            Some("signature_delta") => append(&mut block.value, "signature", text("signature")),
            _ => {}
        }
    }
}

impl Block {
    fn is_tool_use(&self) -> bool {
        self.value.get("type").and_then(Value::as_str) == Some("tool_use")
    }

    /// Sets a `tool_use` block's `input` from its partial JSON, once. Text
    /// that does not parse (a call cut off by `max_tokens`) is kept as a
    /// string, which the decoder passes on as the call's raw arguments, so
    /// the argument check reports it like any malformed call.
    fn close(&mut self) {
        if self.partial_json.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.partial_json);
        let input = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
        if let Value::Object(block) = &mut self.value {
            block.insert("input".into(), input);
        }
    }
}

/// The `index` of a content-block event.
fn index_of(value: &Value) -> Option<u64> {
    value.get("index").and_then(Value::as_u64)
}

/// Appends `piece` to the string field `key` of `block` (created if absent).
fn append(block: &mut Value, key: &str, piece: &str) {
    if let Value::Object(map) = block {
        let entry = map
            .entry(key)
            .or_insert_with(|| Value::String(String::new()));
        if let Value::String(s) = entry {
            s.push_str(piece);
        }
    }
}
