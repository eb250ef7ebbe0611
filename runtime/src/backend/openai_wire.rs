//! What the two OpenAI codecs (Chat Completions and Responses) share: the
//! tool fields, the text of a content value, how an answer ended, and usage.

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
