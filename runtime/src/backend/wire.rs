//! Helpers the provider codecs share: the structured-output field, the
//! sampling settings, the tools offered and how they may be called,
//! strict-tool eligibility, tool-argument parsing, merging of extra body
//! fields, and reading answers.

use super::config::ProviderConfig;
use super::{BackendError, BackendErrorKind, ModelRequest, OutputFormat};
use crate::conversation::{ModelTurn, StopReason, ToolCall, Usage};
use crate::output::ToolChoice;
use crate::tool::ToolSpec;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The `(name, schema)` to send as the provider's structured-output field,
/// if the loop asked for one on this request.
pub(crate) fn native_format(request: &ModelRequest) -> Option<(&str, &Value)> {
    match &request.output {
        OutputFormat::JsonSchema { name, schema } => Some((name.as_str(), schema.as_ref())),
        OutputFormat::Text => None,
    }
}

/// Sets the configured sampling fields (`temperature`, `seed`) on an encoded
/// body, as plain JSON numbers (the request types hold `f32`, which would
/// turn `0.7` into `0.699999988079071`).
pub(crate) fn apply_sampling(body: &mut Value, config: &ProviderConfig) {
    let Value::Object(map) = body else {
        return;
    };
    if let Some(t) = config.temperature {
        map.insert("temperature".to_string(), Value::from(t));
    }
    if let Some(seed) = config.seed {
        map.insert("seed".to_string(), Value::from(seed));
    }
}

/// The tools a request offers, each in a provider's shape, and how the
/// model may call them.
pub(crate) struct Offer<T> {
    /// The encoded tools; never empty.
    pub tools: Vec<T>,
    /// Whether the model must call one ([`ToolChoice::Required`]).
    pub required: bool,
    /// Whether the model may call several at once, if the user said.
    pub parallel: Option<bool>,
}

/// The request's tools, each encoded by `encode` from the tool and whether
/// its parameters fit strict mode ([`strict_ready`]); `None` when the request
/// offers none, so that no tool field is sent at all.
pub(crate) fn offer<'a, T>(
    request: &'a ModelRequest,
    config: &ProviderConfig,
    encode: impl Fn(&'a ToolSpec, bool) -> T,
) -> Option<Offer<T>> {
    if request.tools.is_empty() {
        return None;
    }
    Some(Offer {
        tools: request
            .tools
            .iter()
            .map(|t| encode(t, strict_ready(&t.parameters)))
            .collect(),
        required: request.tool_choice == ToolChoice::Required,
        parallel: config.parallel_tool_calls,
    })
}

/// The tool fields of an OpenAI request, the same on Chat Completions and
/// Responses.
pub(crate) struct OpenAiTools<T> {
    /// `tools`; absent when none are offered.
    pub tools: Option<Vec<T>>,
    /// Whether to send `tool_choice: "required"` (only beside tools).
    pub required: bool,
    /// `parallel_tool_calls`; absent without tools. Strict function tools
    /// and parallel calls don't mix: off unless the user turns it on.
    pub parallel_tool_calls: Option<bool>,
}

/// The tools offered (see [`offer`]) as OpenAI tool fields.
pub(crate) fn openai_tools<T>(offer: Option<Offer<T>>) -> OpenAiTools<T> {
    match offer {
        None => OpenAiTools {
            tools: None,
            required: false,
            parallel_tool_calls: None,
        },
        Some(offer) => OpenAiTools {
            required: offer.required,
            parallel_tool_calls: Some(offer.parallel.unwrap_or(false)),
            tools: Some(offer.tools),
        },
    }
}

/// Whether a tool's parameter schema already fits strict mode: every object
/// is closed (`additionalProperties: false`) and lists all its properties as
/// required. Other schemas are sent without `strict` rather than rejected.
pub(crate) fn strict_ready(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => map.contains_key("properties"),
            };
            if is_object {
                if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                    return false;
                }
                let props = map.get("properties").and_then(Value::as_object);
                let required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(props) = props {
                    if props.keys().any(|k| !required.contains(&k.as_str())) {
                        return false;
                    }
                }
            }
            map.iter().all(|(k, v)| match k.as_str() {
                // Values, not subschemas.
                "enum" | "const" | "default" | "examples" | "required" => true,
                "properties" | "$defs" | "definitions" => {
                    v.as_object().is_none_or(|m| m.values().all(strict_ready))
                }
                _ => strict_ready(v),
            })
        }
        Value::Array(items) => items.iter().all(strict_ready),
        _ => true,
    }
}

/// Tool-call arguments as a JSON object for APIs that want one (Anthropic
/// `tool_use.input`): the parsed text if it is an object, else `{}` (the tool
/// result already told the model its arguments were invalid).
pub(crate) fn arguments_object(raw: &str) -> Value {
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Map::new()),
    }
}

/// Tool-call arguments as raw text, from a provider that sent a string (the
/// norm) or an object (some OpenAI-compatible servers).
pub(crate) fn arguments_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Serialises a provider request body, sets the sampling fields
/// ([`apply_sampling`]) and merges the configured extra fields into it (see
/// [`merge_extra`]).
pub(crate) fn encode_body<T: serde::Serialize>(
    body: &T,
    config: &ProviderConfig,
) -> Result<Value, BackendError> {
    let mut body = serde_json::to_value(body).map_err(|e| {
        BackendError::new(
            BackendErrorKind::Protocol,
            format!("cannot encode the request: {e}"),
        )
    })?;
    apply_sampling(&mut body, config);
    merge_extra(&mut body, &config.extra_body);
    Ok(body)
}

/// Merges `extra` into the object `body`: objects key by key, and the body's
/// own values win where both set a non-object.
pub(crate) fn merge_extra(body: &mut Value, extra: &Map<String, Value>) {
    let Value::Object(target) = body else {
        return;
    };
    for (key, value) in extra {
        match target.get_mut(key) {
            None => {
                target.insert(key.clone(), value.clone());
            }
            Some(existing @ Value::Object(_)) => {
                if let Value::Object(more) = value {
                    merge_extra(existing, more);
                }
            }
            Some(_) => {}
        }
    }
}

/// Text of an OpenAI-style `content` that may be a string, null or a list of
/// parts with `text`.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// A successful answer body read as `T`, the loose serde shape of one
/// provider's answer; a body of another shape is a protocol error naming
/// `provider`.
pub(crate) fn answer_as<T: DeserializeOwned>(
    provider: &str,
    answer: Value,
) -> Result<T, BackendError> {
    serde_json::from_value(answer)
        .map_err(|e| protocol(provider, format!("unexpected response shape: {e}")))
}

/// A protocol error of `provider`: `"{provider}: {what}"`.
pub(crate) fn protocol(provider: &str, what: impl std::fmt::Display) -> BackendError {
    BackendError::new(BackendErrorKind::Protocol, format!("{provider}: {what}"))
}

/// How an OpenAI answer (Chat Completions or Responses) says it ended,
/// refusals aside.
pub(crate) enum Finish {
    /// The content filter stopped it.
    Filtered,
    /// The output-token limit cut it.
    Cut,
    /// It ended on its own (or said nothing).
    Done,
}

/// An OpenAI answer's turn: a refusal (or the content filter) makes it a
/// refusal, whose text stands in for empty content; else a cut answer is
/// `Length`, and one with tool calls is `ToolUse`.
pub(crate) fn openai_turn(
    mut text: String,
    refusal: Option<String>,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    finish: Finish,
) -> ModelTurn {
    let stop = match (finish, &refusal) {
        (_, Some(_)) | (Finish::Filtered, _) => StopReason::Refusal,
        (Finish::Cut, _) => StopReason::Length,
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    if let (Some(r), true) = (refusal, text.is_empty()) {
        text = r;
    }
    ModelTurn {
        text,
        tool_calls,
        usage,
        stop,
        reasoning: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_ready_needs_closed_objects_with_all_required() {
        assert!(strict_ready(&json!({
            "type": "object", "required": ["q"], "additionalProperties": false,
            "properties": {"q": {"type": "string"}}
        })));
        assert!(!strict_ready(&json!({
            "type": "object", "required": [], "additionalProperties": false,
            "properties": {"q": {"type": "string"}}
        })));
        assert!(!strict_ready(&json!({
            "type": "object", "required": ["q"],
            "properties": {"q": {"type": "object", "properties": {}}}
        })));
    }

    #[test]
    fn merge_keeps_both_settings() {
        let mut body =
            json!({"output_config": {"format": {"type": "json_schema"}}, "max_tokens": 5});
        let extra = json!({"output_config": {"effort": "low"}, "max_tokens": 9, "temperature": 0});
        merge_extra(&mut body, extra.as_object().unwrap());
        assert_eq!(
            body,
            json!({"output_config": {"format": {"type": "json_schema"}, "effort": "low"},
                   "max_tokens": 5, "temperature": 0})
        );
    }

    #[test]
    fn arguments_round_trip() {
        assert_eq!(arguments_object("{\"a\":1}"), json!({"a": 1}));
        assert_eq!(arguments_object("not json"), json!({}));
        assert_eq!(arguments_text(Some(&json!({"a": 1}))), "{\"a\":1}");
        assert_eq!(arguments_text(Some(&json!("{\"a\":1}"))), "{\"a\":1}");
    }
}

/// OpenAI's `prompt_tokens_details` (Chat) and `input_tokens_details`
/// (Responses): the cached part of the input.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct InputTokenDetails {
    #[serde(default)]
    pub(crate) cached_tokens: Option<u64>,
}

/// OpenAI's `completion_tokens_details` (Chat) and `output_tokens_details`
/// (Responses): the reasoning part of the output.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct OutputTokenDetails {
    #[serde(default)]
    pub(crate) reasoning_tokens: Option<u64>,
}

/// The usage of an OpenAI answer (Chat or Responses): the token counts and
/// their cached and reasoning parts.
pub(crate) fn openai_usage(
    input: Option<u64>,
    output: Option<u64>,
    input_details: Option<InputTokenDetails>,
    output_details: Option<OutputTokenDetails>,
) -> Usage {
    Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        cache_read_tokens: input_details.and_then(|d| d.cached_tokens).unwrap_or(0),
        cache_write_tokens: 0,
        reasoning_tokens: output_details.and_then(|d| d.reasoning_tokens).unwrap_or(0),
    }
}
