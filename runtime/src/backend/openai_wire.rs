//! What the two OpenAI codecs (Chat Completions and Responses) share: the
//! tool fields, earlier calls' arguments as sent back, the text of a content
//! value, how an answer ended, and usage.

use super::wire::Offer;
use crate::conversation::{ModelTurn, StopReason, ToolCall, Usage};
use serde_json::Value;

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

/// An earlier tool call's arguments as a request sends them back: as the
/// model wrote them when they are one JSON object, else `{}` (as Anthropic's
/// `tool_use.input`, [`wire::arguments_object`](super::wire)). Such a call
/// (cut by the output-token limit, or malformed) already has a result that
/// says what was wrong; sent back as written, it makes llama.cpp's server
/// refuse the whole request (HTTP 500 "Failed to parse tool call arguments
/// as JSON", raised as it renders the chat template), every time: the repair
/// of a cut answer call never reached the model.
pub(crate) fn arguments_sent_back(raw: &str) -> String {
    // Checked without building the value: a history is sent on every turn.
    let is_object = raw.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(raw).is_ok();
    if is_object {
        raw.to_string()
    } else {
        "{}".to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_go_back_as_written_when_an_object_else_as_an_empty_one() {
        let pretty = "{\n  \"query\": \"CN Tower\",\n  \"k\": 3\n}";
        assert_eq!(arguments_sent_back(pretty), pretty);
        assert_eq!(arguments_sent_back(" {} "), " {} ");
        for not_an_object in [
            // Cut by the token limit (seen live on llama.cpp).
            "{\"result\": {\"summary\": \"1372-01372000053",
            "{\"a\": 1} trailing",
            "[1, 2]",
            "\"text\"",
            "",
            "not json",
        ] {
            assert_eq!(arguments_sent_back(not_an_object), "{}", "{not_an_object}");
        }
    }
}
