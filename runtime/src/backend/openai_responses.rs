//! [`OpenAiResponses`](super::OpenAiResponses): the OpenAI Responses
//! backend (`POST {base}/responses`), and its codec [`OpenAiResponsesCodec`].
//!
//! Stateless (`store: false`): every request carries the whole conversation as
//! input items — messages, `function_call` items and `function_call_output`
//! items. Built from async-openai 0.43's request types and sent by
//! [`HttpBackend`](super::HttpBackend) for the reason given in [`openai_chat`](super::openai_chat)
//! (no hidden retries); answers are parsed loosely.

use super::codec::{Codec, Provider};
use super::openai_wire::{self, Finish};
use super::provider::ProviderConfig;
use super::wire;
use super::{BackendError, ModelRequest};
use crate::conversation::{Message, ModelTurn, ToolCall, Usage};
use async_openai::types::responses::{
    CreateResponse, EasyInputContent, EasyInputMessage, FunctionCallOutput,
    FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, InputItem, InputParam, Item,
    MessageType, ResponseFormatJsonSchema, ResponseTextParam, Role,
    TextResponseFormatConfiguration, Tool, ToolChoiceOptions, ToolChoiceParam,
};
use serde::Deserialize;
use serde_json::Value;

/// The Responses wire format (runtime/src/backend/mod.rs).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponsesCodec;

fn message(role: Role, text: &str) -> InputItem {
    InputItem::EasyMessage(EasyInputMessage {
        r#type: MessageType::Message,
        role,
        content: EasyInputContent::Text(text.to_string()),
        phase: None,
    })
}

impl Codec for OpenAiResponsesCodec {
    const PROVIDER: Provider = Provider::OPENAI_RESPONSES;

    type Stream = super::stream::openai_responses::ResponsesStream;

    fn usage(usage: Value) -> Usage {
        serde_json::from_value(usage).map_or_else(|_| Usage::default(), responses_usage)
    }

    fn stream_body(body: &mut Value) -> bool {
        wire::set_stream(body, None)
    }

    fn encode(request: &ModelRequest, config: &ProviderConfig) -> Result<Value, BackendError> {
        let mut input = Vec::new();
        for m in &request.conversation.messages {
            match m {
                Message::User { text } => input.push(message(Role::User, text)),
                Message::Assistant {
                    text, tool_calls, ..
                } => {
                    if !text.is_empty() {
                        input.push(message(Role::Assistant, text));
                    }
                    for c in tool_calls {
                        input.push(InputItem::Item(Item::FunctionCall(FunctionToolCall {
                            arguments: openai_wire::arguments_sent_back(&c.arguments),
                            call_id: c.id.clone(),
                            name: c.name.clone(),
                            ..Default::default()
                        })));
                    }
                }
                Message::ToolResults { results } => {
                    for r in results {
                        input.push(InputItem::Item(Item::FunctionCallOutput(
                            FunctionCallOutputItemParam {
                                call_id: Some(r.id.clone()),
                                output: FunctionCallOutput::Text(r.content.clone()),
                                id: None,
                                status: None,
                                name: None,
                                namespace: None,
                                caller: None,
                            },
                        )));
                    }
                }
            }
        }
        let tools = openai_wire::openai_tools(wire::offer(request, config, |t, strict| {
            Tool::Function(FunctionTool {
                name: t.name.clone(),
                parameters: Some(t.parameters.clone()),
                strict: Some(strict),
                description: Some(t.description.clone()),
                ..Default::default()
            })
        }));
        let text = wire::native_format(request).map(|(name, schema)| ResponseTextParam {
            format: TextResponseFormatConfiguration::JsonSchema(ResponseFormatJsonSchema {
                description: None,
                name: name.to_string(),
                schema: schema.clone(),
                strict: Some(true),
            }),
            verbosity: None,
        });
        let body = CreateResponse {
            model: Some(config.model.clone()),
            input: InputParam::Items(input),
            instructions: request.conversation.system.clone(),
            max_output_tokens: request.max_output_tokens,
            tool_choice: tools
                .required
                .then_some(ToolChoiceParam::Option(ToolChoiceOptions::Required)),
            tools: tools.tools,
            parallel_tool_calls: tools.parallel_tool_calls,
            text,
            store: Some(false),
            ..Default::default()
        };
        wire::encode_body(&body, config)
    }

    fn decode(answer: Value) -> Result<ModelTurn, BackendError> {
        let name = Self::PROVIDER.name;
        let response: Response = wire::answer_as(name, answer)?;
        if response.status.as_deref() == Some("failed") {
            let error = response.error.unwrap_or(Value::Null);
            let mut e = wire::protocol(
                name,
                format_args!(
                    "the response failed: {}",
                    crate::text::clip(
                        str_field(&error, "message").unwrap_or("no message"),
                        crate::text::Limit::Chars(300)
                    )
                ),
            );
            e.provider_type = str_field(&error, "code").map(str::to_string);
            return Err(e);
        }
        let usage = responses_usage(response.usage.unwrap_or_default());
        // A body without `output` is not a Responses answer (an HTML error
        // page parsed as JSON, a proxy's own object): fail as a protocol
        // error rather than reading it as an empty turn.
        let Some(output) = response.output else {
            return Err(wire::protocol(name, "the response has no `output`"));
        };
        let mut text = String::new();
        let mut refusal = None;
        let mut tool_calls = Vec::new();
        for (i, item) in output.iter().enumerate() {
            match str_field(item, "type") {
                Some("message") => {
                    let parts = item.get("content").and_then(Value::as_array);
                    for part in parts.into_iter().flatten() {
                        match str_field(part, "type") {
                            Some("output_text") => {
                                text.push_str(str_field(part, "text").unwrap_or(""))
                            }
                            Some("refusal") => {
                                refusal = Some(str_field(part, "refusal").unwrap_or("").to_string())
                            }
                            _ => {}
                        }
                    }
                }
                Some("function_call") => tool_calls.push(ToolCall {
                    id: str_field(item, "call_id")
                        .or_else(|| str_field(item, "id"))
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("call_{i}")),
                    name: str_field(item, "name").unwrap_or("").to_string(),
                    arguments: wire::arguments_text(item.get("arguments")),
                }),
                // Reasoning and other items carry no part of the turn we keep.
                _ => {}
            }
        }
        let incomplete = response
            .incomplete_details
            .and_then(|d| d.reason)
            .filter(|_| response.status.as_deref() == Some("incomplete"));
        let finish = match incomplete.as_deref() {
            Some("content_filter") => Finish::Filtered,
            Some(_) => Finish::Cut,
            None => Finish::Done,
        };
        Ok(openai_wire::openai_turn(
            text, refusal, tool_calls, usage, finish,
        ))
    }
}

fn responses_usage(usage: ResponsesUsage) -> Usage {
    openai_wire::openai_usage(
        usage.input_tokens,
        usage.output_tokens,
        usage.input_tokens_details,
        usage.output_tokens_details,
    )
}

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    output: Option<Vec<Value>>,
    #[serde(default)]
    usage: Option<ResponsesUsage>,
}

#[derive(Debug, Deserialize)]
struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ResponsesUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<openai_wire::InputTokenDetails>,
    #[serde(default)]
    output_tokens_details: Option<openai_wire::OutputTokenDetails>,
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::codec::{assert_decode_errors, decode_error};
    use crate::conversation::{StopReason, Usage};
    use serde_json::json;

    #[test]
    fn function_call_text_refusal_incomplete() {
        let turn = OpenAiResponsesCodec::decode(json!({"id": "resp_1", "object": "response", "status": "completed",
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                       {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
                        "arguments": "{\"q\":\"x\"}", "status": "completed"}],
            "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}}))
        .unwrap();
        assert_eq!(turn.stop, StopReason::ToolUse);
        assert_eq!(turn.tool_calls[0].id, "call_1");
        assert_eq!(turn.usage, Usage::new(3, 4));
        let detailed = OpenAiResponsesCodec::decode(json!({"status": "completed", "output": [],
            "usage": {"input_tokens": 1200, "output_tokens": 90, "total_tokens": 1290,
                "input_tokens_details": {"cached_tokens": 1024},
                "output_tokens_details": {"reasoning_tokens": 64}}}))
        .unwrap();
        let u = detailed.usage;
        assert_eq!((u.input_tokens, u.output_tokens), (1200, 90));
        assert_eq!((u.cache_read_tokens, u.reasoning_tokens), (1024, 64));
        assert_eq!(u.uncached_input_tokens(), 176);
        let refused = OpenAiResponsesCodec::decode(
            json!({"status": "completed", "output": [{"type": "message",
            "role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]}]}),
        )
        .unwrap();
        assert_eq!(
            (refused.stop, refused.text.as_str()),
            (StopReason::Refusal, "No.")
        );
        let cut = OpenAiResponsesCodec::decode(json!({"status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "{\"a\""}]}]}))
        .unwrap();
        assert_eq!(cut.stop, StopReason::Length);
        let failed = OpenAiResponsesCodec::decode(json!({"status": "failed",
            "error": {"code": "server_error", "message": "boom"}}))
        .unwrap_err();
        assert_eq!(failed.provider_type.as_deref(), Some("server_error"));
    }

    #[test]
    fn failed_missing_and_misshapen_answers_are_protocol_errors() {
        let failed = decode_error::<OpenAiResponsesCodec>(json!({"status": "failed"}));
        assert_eq!(
            failed.message,
            "openai-responses: the response failed: no message"
        );
        assert_eq!(failed.provider_type, None);
        let long = decode_error::<OpenAiResponsesCodec>(
            json!({"status": "failed", "error": {"message": "x".repeat(1000)}}),
        );
        assert!(long.message.chars().count() < 400, "{}", long.message);
        assert_decode_errors::<OpenAiResponsesCodec>(
            "the response has no `output`",
            [
                json!({}),
                json!({"status": "completed"}),
                json!({"output": null}),
            ],
        );
        assert_decode_errors::<OpenAiResponsesCodec>(
            "unexpected response shape",
            [
                json!(null),
                json!("<html>"),
                json!({"output": "text"}),
                json!({"status": 3, "output": []}),
                json!({"output": [], "incomplete_details": "long"}),
            ],
        );
    }

    #[test]
    fn content_filter_refuses_and_stray_items_are_skipped() {
        let filtered = OpenAiResponsesCodec::decode(json!({"status": "incomplete",
            "incomplete_details": {"reason": "content_filter"}, "output": []}))
        .unwrap();
        assert_eq!(filtered.stop, StopReason::Refusal);
        // Details without the incomplete status do not cut the answer.
        let done = OpenAiResponsesCodec::decode(json!({"status": "completed",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [1, "x", {"type": "message", "content": "not parts"},
                       {"type": "function_call"}]}))
        .unwrap();
        assert_eq!(done.stop, StopReason::ToolUse);
        assert_eq!(done.tool_calls[0].id, "call_3");
        assert_eq!(done.tool_calls[0].arguments, "{}");
    }
}
