//! [`OpenAiChat`](super::OpenAiChat): the OpenAI Chat Completions backend
//! (`POST {base}/chat/completions`), which also serves OpenAI-compatible
//! servers (vLLM, llama.cpp's server, Ollama), and its codec
//! [`OpenAiChatCodec`].
//!
//! Requests are built from async-openai 0.43's request types and sent by
//! [`HttpBackend`](super::HttpBackend) on plain reqwest. async-openai's own `Client` always wraps
//! its transport in a retry layer (up to 3 retries on 429/5xx) unless its
//! `middleware` feature is enabled, and those retries would be invisible to
//! our count and deadline; so the transport is ours and the
//! [`Retry`](super::retry::Retry) wrapper owns every retry. Answers are
//! parsed with the loose serde types below rather than async-openai's
//! response types: compatible servers send `content: ""` beside tool calls,
//! omit `created`/`object`, add `timings`, and sometimes give tool arguments
//! as an object. Unknown fields are ignored.

use super::codec::{Codec, Provider};
use super::openai_wire::{self, Finish};
use super::provider::ProviderConfig;
use super::wire;
use super::{BackendError, ModelRequest};
use crate::conversation::{Message, ModelTurn, ToolCall, Usage};
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContent, ChatCompletionTool, ChatCompletionToolChoiceOption,
    ChatCompletionTools, CreateChatCompletionRequest, FunctionCall, FunctionObject, ResponseFormat,
    ResponseFormatJsonSchema, ToolChoiceOptions,
};
use serde::Deserialize;
use serde_json::Value;

/// The Chat Completions wire format (runtime/src/backend/mod.rs).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiChatCodec;

impl Codec for OpenAiChatCodec {
    const PROVIDER: Provider = Provider::OPENAI_CHAT;

    type Stream = super::stream::openai_chat::ChatStream;

    fn usage(usage: Value) -> Usage {
        serde_json::from_value(usage).map_or_else(|_| Usage::default(), chat_usage)
    }

    /// `"stream": true`, with `stream_options.include_usage` so the last
    /// chunk carries the usage the budget needs.
    fn stream_body(body: &mut Value) -> bool {
        wire::set_stream(body, Some(serde_json::json!({"include_usage": true})))
    }

    fn encode(request: &ModelRequest, config: &ProviderConfig) -> Result<Value, BackendError> {
        let mut messages = Vec::new();
        if let Some(system) = &request.conversation.system {
            messages.push(ChatCompletionRequestMessage::System(
                ChatCompletionRequestSystemMessage {
                    content: ChatCompletionRequestSystemMessageContent::Text(system.clone()),
                    name: None,
                },
            ));
        }
        for message in &request.conversation.messages {
            match message {
                Message::User { text } => {
                    messages.push(ChatCompletionRequestMessage::User(
                        ChatCompletionRequestUserMessage {
                            content: ChatCompletionRequestUserMessageContent::Text(text.clone()),
                            name: None,
                        },
                    ));
                }
                Message::Assistant {
                    text, tool_calls, ..
                } => {
                    let calls: Vec<ChatCompletionMessageToolCalls> = tool_calls
                        .iter()
                        .map(|c| {
                            ChatCompletionMessageToolCalls::Function(
                                ChatCompletionMessageToolCall {
                                    id: c.id.clone(),
                                    function: FunctionCall {
                                        name: c.name.clone(),
                                        arguments: openai_wire::arguments_sent_back(&c.arguments),
                                    },
                                },
                            )
                        })
                        .collect();
                    messages.push(ChatCompletionRequestMessage::Assistant(
                        ChatCompletionRequestAssistantMessage {
                            // OpenAI accepts `null` content beside tool calls.
                            content: (!text.is_empty() || calls.is_empty()).then(|| {
                                ChatCompletionRequestAssistantMessageContent::Text(text.clone())
                            }),
                            tool_calls: (!calls.is_empty()).then_some(calls),
                            ..Default::default()
                        },
                    ));
                }
                Message::ToolResults { results } => {
                    for r in results {
                        messages.push(ChatCompletionRequestMessage::Tool(
                            ChatCompletionRequestToolMessage {
                                content: ChatCompletionRequestToolMessageContent::Text(
                                    r.content.clone(),
                                ),
                                tool_call_id: r.id.clone(),
                            },
                        ));
                    }
                }
            }
        }
        let tools = openai_wire::openai_tools(wire::offer(request, config, |t, strict| {
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: t.name.clone(),
                    description: Some(t.description.clone()),
                    parameters: Some(t.parameters.clone()),
                    strict: strict.then_some(true),
                },
            })
        }));
        let response_format =
            wire::native_format(request).map(|(name, schema)| ResponseFormat::JsonSchema {
                json_schema: ResponseFormatJsonSchema {
                    description: None,
                    name: name.to_string(),
                    schema: schema.clone(),
                    strict: Some(true),
                },
            });
        let body = CreateChatCompletionRequest {
            messages,
            model: config.model.clone(),
            max_completion_tokens: request.max_output_tokens,
            response_format,
            tool_choice: tools
                .required
                .then_some(ChatCompletionToolChoiceOption::Mode(
                    ToolChoiceOptions::Required,
                )),
            tools: tools.tools,
            parallel_tool_calls: tools.parallel_tool_calls,
            ..Default::default()
        };
        wire::encode_body(&body, config)
    }

    fn decode(answer: Value) -> Result<ModelTurn, BackendError> {
        let response: ChatResponse = wire::answer_as(Self::PROVIDER.name, answer)?;
        let usage = chat_usage(response.usage.unwrap_or_default());
        let Some(choice) = response.choices.unwrap_or_default().into_iter().next() else {
            return Err(wire::protocol(
                Self::PROVIDER.name,
                "the response has no choices",
            ));
        };
        let message = choice.message.unwrap_or_default();
        let tool_calls: Vec<ToolCall> = message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let function = c.function?;
                Some(ToolCall {
                    id: c
                        .id
                        .filter(|id| !id.is_empty())
                        .unwrap_or_else(|| format!("call_{i}")),
                    name: function.name.unwrap_or_default(),
                    arguments: wire::arguments_text(function.arguments.as_ref()),
                })
            })
            .collect();
        let finish = match choice.finish_reason.as_deref() {
            Some("content_filter") => Finish::Filtered,
            Some("length") => Finish::Cut,
            _ => Finish::Done,
        };
        Ok(openai_wire::openai_turn(
            openai_wire::content_text(message.content.as_ref()),
            message.refusal.filter(|r| !r.is_empty()),
            tool_calls,
            usage,
            finish,
        ))
    }
}

fn chat_usage(usage: ChatUsage) -> Usage {
    openai_wire::openai_usage(
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.prompt_tokens_details,
        usage.completion_tokens_details,
    )
}

#[derive(Debug, Deserialize)]
struct ChatResponse {
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<ChatUsage>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<ChoiceMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ChatToolCall>>,
}

#[derive(Debug, Deserialize)]
struct ChatToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<ChatFunction>,
}

#[derive(Debug, Deserialize)]
struct ChatFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<openai_wire::InputTokenDetails>,
    #[serde(default)]
    completion_tokens_details: Option<openai_wire::OutputTokenDetails>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::codec::assert_decode_errors;
    use crate::conversation::{StopReason, Usage};
    use serde_json::json;

    #[test]
    fn llama_cpp_tool_call_with_empty_content_and_timings() {
        let turn = OpenAiChatCodec::decode(json!({
            "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                "role": "assistant", "content": "",
                "tool_calls": [{"type": "function", "id": "abc",
                    "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}]}}],
            "created": 1, "model": "qwen", "object": "chat.completion",
            "usage": {"completion_tokens": 5, "prompt_tokens": 10, "total_tokens": 15},
            "timings": {"prompt_n": 10, "predicted_ms": 20.5}
        }))
        .unwrap();
        assert_eq!(turn.stop, StopReason::ToolUse);
        assert_eq!(turn.text, "");
        assert_eq!(turn.tool_calls[0].arguments, "{\"q\":\"x\"}");
        assert_eq!(turn.usage.total(), 15);
    }

    #[test]
    fn usage_reads_cached_and_reasoning_tokens() {
        let turn = OpenAiChatCodec::decode(json!({
            "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "{}"}}],
            "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0}}
        }))
        .unwrap();
        let u = turn.usage;
        assert_eq!((u.input_tokens, u.output_tokens), (2006, 300));
        assert_eq!(
            (
                u.cache_read_tokens,
                u.cache_write_tokens,
                u.reasoning_tokens
            ),
            (1920, 0, 256)
        );
        // Servers that send null or no details report no parts.
        let turn = OpenAiChatCodec::decode(json!({
            "choices": [{"message": {"content": "{}"}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1,
                "prompt_tokens_details": null, "completion_tokens_details": {}}
        }))
        .unwrap();
        assert_eq!(turn.usage, Usage::new(5, 1));
    }

    #[test]
    fn refusal_and_length() {
        let refused = OpenAiChatCodec::decode(json!({"choices": [{"finish_reason": "stop",
            "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]}))
        .unwrap();
        assert_eq!(refused.stop, StopReason::Refusal);
        assert_eq!(refused.text, "I can't help with that.");
        let cut = OpenAiChatCodec::decode(json!({"choices": [{"finish_reason": "length",
            "message": {"role": "assistant", "content": "{\"a\": "}}]}))
        .unwrap();
        assert_eq!(cut.stop, StopReason::Length);
        let filtered =
            OpenAiChatCodec::decode(json!({"choices": [{"finish_reason": "content_filter",
            "message": {"role": "assistant", "content": "partial"}}]}))
            .unwrap();
        assert_eq!(
            (filtered.stop, filtered.text.as_str()),
            (StopReason::Refusal, "partial")
        );
    }

    #[test]
    fn a_body_that_is_no_chat_answer_is_a_protocol_error() {
        assert_decode_errors::<OpenAiChatCodec>(
            "unexpected response shape",
            [
                json!(null),
                json!("<html>"),
                json!([1, 2]),
                json!({"choices": "many"}),
                json!({"choices": [{"message": {"tool_calls": {"id": "x"}}}]}),
                json!({"choices": [{"message": {}}], "usage": {"prompt_tokens": -1}}),
            ],
        );
        assert_decode_errors::<OpenAiChatCodec>(
            "the response has no choices",
            [json!({}), json!({"choices": []}), json!({"choices": null})],
        );
    }

    #[test]
    fn sparse_choices_and_calls_still_make_a_turn() {
        let empty = OpenAiChatCodec::decode(json!({"choices": [{}]})).unwrap();
        assert_eq!((empty.stop, empty.text.as_str()), (StopReason::EndTurn, ""));
        let calls = OpenAiChatCodec::decode(json!({"choices": [{"message": {"tool_calls": [
            {"id": "keep"},
            {"id": "", "function": {"name": "search", "arguments": {"q": "x"}}},
            {"function": {}}
        ]}}]}))
        .unwrap();
        let ids: Vec<&str> = calls.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_1", "call_2"]);
        assert_eq!(calls.tool_calls[0].arguments, "{\"q\":\"x\"}");
        assert_eq!(calls.tool_calls[1].arguments, "{}");
        assert_eq!(calls.stop, StopReason::ToolUse);
    }
}
