//! Helpers the provider codecs share: the structured-output field, the
//! sampling settings, the tools offered and how they may be called,
//! strict-tool eligibility, tool-argument parsing, merging of extra body
//! fields, and reading answers.

use super::provider::ProviderConfig;
use super::refused_sampling::SamplingField;
use super::{BackendError, BackendErrorKind, ModelRequest, OutputFormat};
use crate::conversation::ToolSpec;
use crate::output::ToolChoice;
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

/// Sets the configured sampling fields (`temperature`, `top_p`, `seed`) on an encoded
/// body, as plain JSON numbers (the request types hold `f32`, which would
/// turn `0.7` into `0.699999988079071`).
pub(crate) fn apply_sampling(body: &mut Value, config: &ProviderConfig) {
    let Value::Object(map) = body else {
        return;
    };
    for field in SamplingField::ALL {
        if let Some(value) = field.value_in(&config.settings) {
            map.insert(field.as_str().to_string(), value);
        }
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
        parallel: config.settings.parallel_tool_calls,
    })
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
                if let Some(props) = props
                    && props.keys().any(|k| !required.contains(&k.as_str()))
                {
                    return false;
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
#[cfg(feature = "anthropic")]
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
    merge_extra(&mut body, &config.settings.extra_body);
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

/// Asks for a streamed answer: `"stream": true`, and `stream_options` when
/// given. Returns true (the body streams); false when the body is not an
/// object, which is sent unstreamed.
pub(crate) fn set_stream(body: &mut Value, options: Option<Value>) -> bool {
    let Value::Object(map) = body else {
        return false;
    };
    map.insert("stream".into(), Value::Bool(true));
    if let Some(options) = options {
        map.insert("stream_options".into(), options);
    }
    true
}

/// A protocol error of `provider`: `"{provider}: {what}"`.
pub(crate) fn protocol(provider: &str, what: impl std::fmt::Display) -> BackendError {
    BackendError::new(BackendErrorKind::Protocol, format!("{provider}: {what}"))
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
    #[cfg(feature = "anthropic")]
    fn arguments_as_an_object() {
        assert_eq!(arguments_object("{\"a\":1}"), json!({"a": 1}));
        assert_eq!(arguments_object("not json"), json!({}));
    }

    #[test]
    fn arguments_as_text() {
        assert_eq!(arguments_text(Some(&json!({"a": 1}))), "{\"a\":1}");
        assert_eq!(arguments_text(Some(&json!("{\"a\":1}"))), "{\"a\":1}");
    }
}
