//! [`OpenAiResponses`]: the OpenAI Responses backend (`POST {base}/responses`).
//!
//! Stateless (`store: false`): every request carries the whole conversation as
//! input items — messages, `function_call` items and `function_call_output`
//! items. Built from async-openai 0.43's request types and sent with plain
//! reqwest for the reason given in [`openai_chat`](super::openai_chat) (no
//! hidden retries); answers are parsed loosely.

use super::config::ProviderConfig;
use super::http::{Endpoint, join_url};
use super::wire;
use super::{Backend, BackendError, BackendErrorKind, ModelRequest};
use crate::conversation::{Message, ModelTurn, StopReason, ToolCall, Usage};
use crate::output::{OutputPlan, ToolChoice};
use async_openai::types::responses::{
    CreateResponse, EasyInputContent, EasyInputMessage, FunctionCallOutput,
    FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, InputItem, InputParam, Item,
    MessageType, ResponseFormatJsonSchema, ResponseTextParam, Role,
    TextResponseFormatConfiguration, Tool, ToolChoiceOptions, ToolChoiceParam,
};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

/// The OpenAI Responses backend. Sends no retries of its own; wrap it in
/// [`Retry`](super::retry::Retry) (as [`connect`](super::config::connect) does).
#[derive(Debug)]
pub struct OpenAiResponses {
    config: ProviderConfig,
    endpoint: Endpoint,
}

fn message(role: Role, text: &str) -> InputItem {
    InputItem::EasyMessage(EasyInputMessage {
        r#type: MessageType::Message,
        role,
        content: EasyInputContent::Text(text.to_string()),
        phase: None,
    })
}

impl OpenAiResponses {
    /// A backend for `config`. Errors: the key cannot travel in a header, or
    /// the HTTP client cannot be built.
    pub fn new(config: ProviderConfig) -> Result<Self, BackendError> {
        let endpoint = Endpoint::new(
            "openai-responses",
            join_url(&config.base_url, "/responses"),
            &config.api_key,
            &[("authorization", format!("Bearer {}", config.api_key))],
            &[],
        )?;
        Ok(OpenAiResponses { config, endpoint })
    }

    /// The JSON body this backend sends for `request` (for inspection and tests).
    pub fn request_body(&self, request: &ModelRequest) -> Result<Value, BackendError> {
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
                            arguments: c.arguments.clone(),
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
        let tools: Vec<Tool> = request
            .tools
            .iter()
            .map(|t| {
                Tool::Function(FunctionTool {
                    name: t.name.clone(),
                    parameters: Some(t.parameters.clone()),
                    strict: Some(wire::strict_ready(&t.parameters)),
                    description: Some(t.description.clone()),
                    ..Default::default()
                })
            })
            .collect();
        let text = wire::native_format(request).map(|(name, schema)| ResponseTextParam {
            format: TextResponseFormatConfiguration::JsonSchema(ResponseFormatJsonSchema {
                description: None,
                name: name.to_string(),
                schema: schema.clone(),
                strict: Some(true),
            }),
            verbosity: None,
        });
        let has_tools = !tools.is_empty();
        let body = CreateResponse {
            model: Some(self.config.model.clone()),
            input: InputParam::Items(input),
            instructions: request.conversation.system.clone(),
            max_output_tokens: request.max_output_tokens,
            tool_choice: (has_tools && request.tool_choice == ToolChoice::Required)
                .then_some(ToolChoiceParam::Option(ToolChoiceOptions::Required)),
            tools: has_tools.then_some(tools),
            // Strict function tools and parallel calls don't mix: off unless
            // the user turns it on.
            parallel_tool_calls: has_tools
                .then_some(self.config.parallel_tool_calls.unwrap_or(false)),
            text,
            store: Some(false),
            ..Default::default()
        };
        wire::encode_body(&body, &self.config)
    }
}

impl Backend for OpenAiResponses {
    fn name(&self) -> &str {
        "openai-responses"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn output_plan(&self) -> OutputPlan {
        self.config.plan
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            let body = self.request_body(request)?;
            let answer = self.endpoint.post_json(&body).await?;
            parse_response(answer)
        })
    }
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
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Maps a Responses answer to a [`ModelTurn`].
pub(crate) fn parse_response(answer: Value) -> Result<ModelTurn, BackendError> {
    let response: Response = serde_json::from_value(answer).map_err(|e| {
        BackendError::new(
            BackendErrorKind::Protocol,
            format!("openai-responses: unexpected response shape: {e}"),
        )
    })?;
    if response.status.as_deref() == Some("failed") {
        let error = response.error.unwrap_or(Value::Null);
        let mut e = BackendError::new(
            BackendErrorKind::Protocol,
            format!(
                "openai-responses: the response failed: {}",
                crate::text::clip(
                    str_field(&error, "message").unwrap_or("no message"),
                    crate::text::Limit::Chars(300)
                )
            ),
        );
        e.provider_type = str_field(&error, "code").map(str::to_string);
        return Err(e);
    }
    let usage = response.usage.unwrap_or_default();
    let usage = Usage {
        input_tokens: usage.input_tokens.unwrap_or(0),
        output_tokens: usage.output_tokens.unwrap_or(0),
    };
    // A body without `output` is not a Responses answer (an HTML error page
    // parsed as JSON, a proxy's own object): fail as a protocol error rather
    // than reading it as an empty turn.
    let Some(output) = response.output else {
        return Err(BackendError::new(
            BackendErrorKind::Protocol,
            "openai-responses: the response has no `output`",
        ));
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
                        Some("output_text") => text.push_str(str_field(part, "text").unwrap_or("")),
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
    let stop = match (incomplete.as_deref(), &refusal) {
        (_, Some(_)) | (Some("content_filter"), _) => StopReason::Refusal,
        (Some(_), _) => StopReason::Length,
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    if let (Some(r), true) = (refusal, text.is_empty()) {
        text = r;
    }
    Ok(ModelTurn {
        text,
        tool_calls,
        usage,
        stop,
        reasoning: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn function_call_text_refusal_incomplete() {
        let turn = parse_response(json!({"id": "resp_1", "object": "response", "status": "completed",
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                       {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
                        "arguments": "{\"q\":\"x\"}", "status": "completed"}],
            "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}}))
        .unwrap();
        assert_eq!(turn.stop, StopReason::ToolUse);
        assert_eq!(turn.tool_calls[0].id, "call_1");
        let refused = parse_response(json!({"status": "completed", "output": [{"type": "message",
            "role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]}]}))
        .unwrap();
        assert_eq!(
            (refused.stop, refused.text.as_str()),
            (StopReason::Refusal, "No.")
        );
        let cut = parse_response(json!({"status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "{\"a\""}]}]}))
        .unwrap();
        assert_eq!(cut.stop, StopReason::Length);
        let failed = parse_response(json!({"status": "failed",
            "error": {"code": "server_error", "message": "boom"}}))
        .unwrap_err();
        assert_eq!(failed.provider_type.as_deref(), Some("server_error"));
    }
}
