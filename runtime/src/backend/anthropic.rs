//! [`Anthropic`](super::Anthropic): the Anthropic Messages backend
//! (`POST {base}/v1/messages`), and its codec [`AnthropicCodec`] on the serde
//! types below.
//!
//! Headers `x-api-key` and `anthropic-version: 2023-06-01`; tools with
//! `input_schema`; `tool_use` / `tool_result` blocks; the answer's format in
//! `output_config.format`, merged with any other `output_config` settings from
//! [`ProviderConfig::extra_body`]. `max_tokens` is required by the API: the
//! request's ceiling, else [`STRUCTURED_MAX_TOKENS`] when a JSON answer is
//! asked for and [`TEXT_MAX_TOKENS`] otherwise. The assistant turn is never
//! prefilled: prefill is incompatible with structured output. With
//! [`ProviderConfig::prompt_cache`] on (the default) the body gets
//! `cache_control` breakpoints (the [`prompt_cache`] module).

use super::codec::{Codec, Provider};
use super::prompt_cache::{self, BlockAt};
use super::provider::ProviderConfig;
use super::wire::{self, Offer};
use super::{BackendError, ModelRequest, OutputFormat};
use crate::conversation::{Message, ModelTurn, StopReason, ToolCall, Usage};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `max_tokens` when the request sets none and a JSON answer is asked for.
pub(super) const STRUCTURED_MAX_TOKENS: u32 = 8192;
/// `max_tokens` when the request sets none and free text is asked for.
pub(super) const TEXT_MAX_TOKENS: u32 = 4096;

/// The Messages wire format (runtime/src/backend/mod.rs).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicCodec;

#[derive(Debug, Serialize)]
struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<WireMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<Value>,
}

#[derive(Debug, Serialize)]
struct WireMessage {
    role: &'static str,
    content: Vec<Block>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// A block the API gave us, sent back unmodified (thinking blocks).
    #[serde(untagged)]
    Verbatim(Value),
}

#[derive(Debug, Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}

impl Codec for AnthropicCodec {
    const PROVIDER: Provider = Provider::ANTHROPIC;

    type Stream = super::stream::anthropic::MessagesStream;

    fn usage(usage: Value) -> Usage {
        serde_json::from_value(usage).map_or_else(|_| Usage::default(), anthropic_usage)
    }

    fn stream_body(body: &mut Value) -> bool {
        wire::set_stream(body, None)
    }

    fn encode(request: &ModelRequest, config: &ProviderConfig) -> Result<Value, BackendError> {
        let mut messages: Vec<WireMessage> = Vec::new();
        // The previous request of the run ended before the last assistant
        // turn: its last block is where that request's cache mark was.
        let last_assistant = request
            .conversation
            .messages
            .iter()
            .rposition(|m| matches!(m, Message::Assistant { .. }));
        let mut previous_end = None;
        for (i, m) in request.conversation.messages.iter().enumerate() {
            if Some(i) == last_assistant {
                previous_end = messages.len().checked_sub(1).map(|message| BlockAt {
                    message,
                    block: messages[message].content.len().saturating_sub(1),
                });
            }
            let (role, blocks) = match m {
                Message::User { text } => ("user", vec![Block::Text { text: text.clone() }]),
                Message::Assistant {
                    text,
                    tool_calls,
                    reasoning,
                } => {
                    // Thinking blocks first, unmodified, as the API requires.
                    let mut blocks: Vec<Block> =
                        reasoning.iter().cloned().map(Block::Verbatim).collect();
                    // The API rejects empty text blocks.
                    if !text.is_empty() {
                        blocks.push(Block::Text { text: text.clone() });
                    }
                    blocks.extend(tool_calls.iter().map(|c| Block::ToolUse {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        input: wire::arguments_object(&c.arguments),
                    }));
                    ("assistant", blocks)
                }
                Message::ToolResults { results } => (
                    "user",
                    results
                        .iter()
                        .map(|r| Block::ToolResult {
                            tool_use_id: r.id.clone(),
                            content: r.content.clone(),
                            is_error: r.is_error,
                        })
                        .collect(),
                ),
            };
            if blocks.is_empty() {
                continue;
            }
            // Consecutive turns of one role become one message (tool results
            // first, then the user's text, as the API wants them).
            match messages.last_mut() {
                Some(last) if last.role == role => last.content.extend(blocks),
                _ => messages.push(WireMessage {
                    role,
                    content: blocks,
                }),
            }
        }
        let offer = wire::offer(request, config, |t, strict| WireTool {
            name: &t.name,
            description: &t.description,
            input_schema: &t.parameters,
            strict: strict.then_some(true),
        });
        let tool_choice = offer.as_ref().and_then(tool_choice);
        let output_config = wire::native_format(request)
            .map(|(_, schema)| json!({"format": {"type": "json_schema", "schema": schema}}));
        let structured = matches!(request.output, OutputFormat::JsonSchema { .. });
        let body = MessagesRequest {
            model: &config.model,
            max_tokens: request.max_output_tokens.unwrap_or(if structured {
                STRUCTURED_MAX_TOKENS
            } else {
                TEXT_MAX_TOKENS
            }),
            system: request.conversation.system.clone(),
            messages,
            tools: offer.map(|o| o.tools).unwrap_or_default(),
            tool_choice,
            output_config,
        };
        let mut body = wire::encode_body(&body, config)?;
        if config.settings.prompt_cache() {
            prompt_cache::place_breakpoints(&mut body, &config.model, previous_end);
        }
        Ok(body)
    }

    fn decode(answer: Value) -> Result<ModelTurn, BackendError> {
        let response: MessagesResponse = wire::answer_as(Self::PROVIDER.name, answer)?;
        let usage = anthropic_usage(response.usage.unwrap_or_default());
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        let mut reasoning = Vec::new();
        // A body without `content` is not a Messages answer (a proxy's own
        // object, an error page parsed as JSON): a protocol error, as on the
        // other APIs, rather than an empty turn. An empty `content` is one.
        let Some(content) = response.content else {
            return Err(wire::protocol(
                Self::PROVIDER.name,
                "the response has no `content`",
            ));
        };
        for (i, block) in content.iter().enumerate() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    text.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""))
                }
                Some("tool_use") => tool_calls.push(ToolCall {
                    id: block
                        .get("id")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("toolu_{i}")),
                    name: block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    arguments: wire::arguments_text(block.get("input")),
                }),
                // Kept verbatim: with extended thinking on, the API wants them
                // back (signature included) on the next request.
                Some("thinking" | "redacted_thinking") => reasoning.push(block.clone()),
                // Other blocks are not part of the turn we keep.
                _ => {}
            }
        }
        let stop = match response.stop_reason.as_deref() {
            Some("refusal") => StopReason::Refusal,
            Some("max_tokens" | "model_context_window_exceeded") => StopReason::Length,
            _ if !tool_calls.is_empty() => StopReason::ToolUse,
            _ => StopReason::EndTurn,
        };
        Ok(ModelTurn {
            text,
            tool_calls,
            usage,
            stop,
            reasoning,
        })
    }
}

/// Anthropic's `tool_choice` for the tools offered: `{"type": "any"}` when a
/// tool call is required, and `disable_parallel_tool_use` when parallel calls
/// are turned off. `None` (the API's default: auto, parallel allowed)
/// otherwise.
fn tool_choice<T>(offer: &Offer<T>) -> Option<Value> {
    let kind = if offer.required { "any" } else { "auto" };
    match (offer.required, offer.parallel) {
        (_, Some(false)) => Some(json!({"type": kind, "disable_parallel_tool_use": true})),
        (true, _) => Some(json!({"type": kind})),
        (false, _) => None,
    }
}

#[derive(Debug, Deserialize)]
struct MessagesResponse {
    #[serde(default)]
    content: Option<Vec<Value>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<AnthropicUsage>,
}

/// Anthropic's usage as ours: its `input_tokens` excludes the cached parts;
/// ours counts every input token.
fn anthropic_usage(u: AnthropicUsage) -> Usage {
    let (read, write) = (
        u.cache_read_input_tokens.unwrap_or(0),
        u.cache_creation_input_tokens.unwrap_or(0),
    );
    Usage {
        input_tokens: u
            .input_tokens
            .unwrap_or(0)
            .saturating_add(write)
            .saturating_add(read),
        output_tokens: u.output_tokens.unwrap_or(0),
        cache_read_tokens: read,
        cache_write_tokens: write,
        reasoning_tokens: 0,
    }
}

#[derive(Debug, Default, Deserialize)]
struct AnthropicUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::codec::assert_decode_errors;

    #[test]
    fn stop_reasons() {
        let turn = AnthropicCodec::decode(json!({"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "x"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 3}}))
        .unwrap();
        assert_eq!(turn.stop, StopReason::ToolUse);
        assert_eq!(turn.tool_calls[0].arguments, "{\"q\":\"x\"}");
        let cut = AnthropicCodec::decode(json!({"content": [{"type": "text", "text": "{"}],
            "stop_reason": "max_tokens"}))
        .unwrap();
        assert_eq!(cut.stop, StopReason::Length);
        let refused =
            AnthropicCodec::decode(json!({"content": [], "stop_reason": "refusal"})).unwrap();
        assert_eq!(refused.stop, StopReason::Refusal);
    }

    #[test]
    fn a_body_that_is_no_messages_answer_is_a_protocol_error() {
        assert_decode_errors::<AnthropicCodec>(
            "unexpected response shape",
            [
                json!(null),
                json!("<html>"),
                json!(["text"]),
                json!({"content": "text"}),
                json!({"content": [], "stop_reason": 1}),
                json!({"content": [], "usage": {"input_tokens": "many"}}),
            ],
        );
        assert_decode_errors::<AnthropicCodec>(
            "the response has no `content`",
            [
                json!({}),
                json!({"stop_reason": "end_turn"}),
                json!({"content": null}),
            ],
        );
        let empty =
            AnthropicCodec::decode(json!({"content": [], "stop_reason": "end_turn"})).unwrap();
        assert_eq!(empty.text, "");
    }

    #[test]
    fn usage_counts_cache_tokens_and_blocks_keep_their_order() {
        let turn = AnthropicCodec::decode(json!({"content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "a"}, 7, {"type": "image"},
                {"type": "text", "text": "b"}, {"type": "tool_use"}],
            "usage": {"input_tokens": 1, "cache_creation_input_tokens": 2,
                      "cache_read_input_tokens": 3, "output_tokens": 4}}))
        .unwrap();
        assert_eq!(turn.text, "ab");
        assert_eq!(turn.reasoning.len(), 1);
        assert_eq!(turn.tool_calls[0].id, "toolu_5");
        assert_eq!((turn.usage.input_tokens, turn.usage.output_tokens), (6, 4));
        assert_eq!(
            (turn.usage.cache_read_tokens, turn.usage.cache_write_tokens),
            (3, 2)
        );
        assert_eq!(turn.usage.uncached_input_tokens(), 1);
        let huge = AnthropicCodec::decode(json!({"content": [], "usage": {
            "input_tokens": u64::MAX, "cache_read_input_tokens": u64::MAX}}))
        .unwrap();
        assert_eq!(huge.usage.input_tokens, u64::MAX);
    }

    #[test]
    fn tool_choice_says_only_what_differs_from_the_default() {
        let offer = |required, parallel| Offer {
            tools: vec![()],
            required,
            parallel,
        };
        assert_eq!(tool_choice(&offer(false, None)), None);
        assert_eq!(tool_choice(&offer(false, Some(true))), None);
        assert_eq!(
            tool_choice(&offer(true, None)),
            Some(json!({"type": "any"}))
        );
        assert_eq!(
            tool_choice(&offer(false, Some(false))),
            Some(json!({"type": "auto", "disable_parallel_tool_use": true}))
        );
        assert_eq!(
            tool_choice(&offer(true, Some(false))),
            Some(json!({"type": "any", "disable_parallel_tool_use": true}))
        );
    }
}
