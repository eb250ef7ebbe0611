//! The final-answer pipeline: size check → extraction → decode → validation,
//! and the repair message built from a rejection. Pure functions.

use crate::contract::{AnswerContract, Rejection};
use crate::conversation::StopReason;
use crate::error::ErrorCode;
use crate::json::{ExtractedFrom, ExtractionError, ExtractionMode, ParseLimits, extract};
use crate::output::SchemaTarget;
use crate::text::one_line;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How final answers are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerPolicy {
    /// Lenient (default) or strict extraction.
    pub mode: ExtractionMode,
    /// Deepest nesting accepted. Default: 128.
    pub max_depth: usize,
    /// Largest answer text accepted, in bytes. Default: 1 MiB.
    pub max_bytes: usize,
}

impl Default for AnswerPolicy {
    fn default() -> Self {
        AnswerPolicy {
            mode: ExtractionMode::Lenient,
            max_depth: 128,
            max_bytes: 1024 * 1024,
        }
    }
}

/// An accepted final answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The decoded, validated value.
    pub value: Value,
    /// Where the JSON was found in the text.
    pub extracted_from: ExtractedFrom,
}

/// Runs the whole pipeline on a final answer's text.
pub fn evaluate_answer(
    contract: &dyn AnswerContract,
    target: SchemaTarget,
    text: &str,
    stop: StopReason,
    policy: &AnswerPolicy,
) -> Result<Accepted, Rejection> {
    if stop == StopReason::Refusal {
        return Err(Rejection::new(ErrorCode::Refused, "the model refused"));
    }
    if text.len() > policy.max_bytes {
        return Err(Rejection::new(
            ErrorCode::TooLarge,
            format!(
                "the answer is {} bytes; the limit is {}",
                text.len(),
                policy.max_bytes
            ),
        ));
    }
    if stop == StopReason::Runaway {
        return Err(Rejection::new(
            ErrorCode::Runaway,
            "the answer repeated itself and was cut off",
        ));
    }
    if stop == StopReason::Length {
        return Err(Rejection::new(
            ErrorCode::Truncated,
            "the answer was cut off by the output-token limit",
        ));
    }
    let limits = ParseLimits {
        max_depth: policy.max_depth,
    };
    let extraction = extract(
        text,
        policy.mode,
        contract.wire_root_is_object(target),
        &limits,
    )
    .map_err(|e| match e {
        ExtractionError::NoJson if policy.mode == ExtractionMode::Text => {
            Rejection::new(ErrorCode::NoJson, "the answer is empty")
        }
        ExtractionError::NoJson => {
            Rejection::new(ErrorCode::NoJson, "no JSON value was found in the response")
        }
        ExtractionError::Truncated => {
            Rejection::new(ErrorCode::Truncated, "the JSON value is incomplete")
        }
        ExtractionError::Invalid(p) => Rejection::new(
            ErrorCode::InvalidJson,
            format!(
                "the response is not valid JSON: {}",
                one_line(&p.message, 200)
            ),
        ),
    })?;
    let value = contract.decode_and_validate(target, extraction.value)?;
    Ok(Accepted {
        value,
        extracted_from: extraction.extracted_from,
    })
}

/// Most instance-path lines a repair message carries.
pub const MAX_REPAIR_PATHS: usize = 5;
/// Longest message per instance-path line, in characters.
pub const MAX_REPAIR_MESSAGE_CHARS: usize = 200;

/// The exact repair message the loop sends for `rejection`. Under the tool
/// strategy (`answer_tool` names the answer tool) it is the answer call's
/// result (or a user message after a text answer), and its last line asks
/// for a call of that tool.
///
/// ```text
/// Your final response did not match the required schema: <code>: <summary>
/// - instancePath "<pointer>": <message>
/// Return only one JSON object matching the schema.
/// ```
pub fn repair_message(rejection: &Rejection, answer_tool: Option<&str>) -> String {
    let mut out = format!(
        "Your final response did not match the required schema: {}: {}\n",
        rejection.code.as_str(),
        one_line(&rejection.summary, MAX_REPAIR_MESSAGE_CHARS)
    );
    for issue in rejection.issues.iter().take(MAX_REPAIR_PATHS) {
        out.push_str(&format!(
            "- instancePath \"{}\": {}\n",
            one_line(&issue.path, MAX_REPAIR_MESSAGE_CHARS),
            one_line(&issue.message, MAX_REPAIR_MESSAGE_CHARS)
        ));
    }
    match answer_tool {
        Some(tool) => out.push_str(&format!(
            "Give your final answer by calling {tool}, with arguments that match its schema."
        )),
        None => out.push_str("Return only one JSON object matching the schema."),
    }
    out
}

/// The repair message of a text answer (`extraction = "text"`): the
/// reason, and a request for plain text instead of a schema.
pub fn text_repair_message(rejection: &Rejection) -> String {
    format!(
        "Your final response could not be used: {}: {}\nGive your final answer now, as plain text.",
        rejection.code.as_str(),
        one_line(&rejection.summary, MAX_REPAIR_MESSAGE_CHARS)
    )
}

/// The message of the finalize turn: `code` ended the tool phase (a budget
/// under `on_budget = "finalize"`, or a turn that only repeated earlier calls
/// under `on_repeat = "finalize"`), no tool can be called any more, and the
/// final answer is due now from what the tools returned — as one JSON
/// object, or as a call to `answer_tool` under the tool strategy.
pub fn finalize_message(code: ErrorCode, answer_tool: Option<&str>) -> String {
    let how = match answer_tool {
        Some(tool) => format!("by calling {tool}"),
        None => "as one JSON object matching the required schema, and nothing else".to_string(),
    };
    finalize_saying(code, &how)
}

/// [`finalize_message`] for a text answer (`extraction = "text"`).
pub fn finalize_text_message(code: ErrorCode) -> String {
    finalize_saying(code, "as plain text")
}

/// The finalize message, the answer due `how`.
fn finalize_saying(code: ErrorCode, how: &str) -> String {
    if code == ErrorCode::NoProgress {
        return format!("No tools can be called any more. Give your final answer now, {how}.");
    }
    let spent = spent(code);
    format!(
        "No more tools can be called: {spent}. Give your final answer now, from what the tool results above show, {how}."
    )
}

/// What ended the tool phase, in the finalize messages' words.
fn spent(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::MaxTurnsExceeded => "the turn budget is spent",
        ErrorCode::ToolCallsRepeated => {
            "your last calls repeated earlier ones, whose results are above"
        }
        ErrorCode::NothingNew => {
            "your last calls found nothing the results above had not already shown"
        }
        _ => "the tool-call budget is spent",
    }
}

/// The finalize message of a conversation's agent turn
/// (`Machine::new_reply`): `code` ended its tool
/// phase, and the reply to the user is due now, as plain text.
pub fn reply_finalize_message(code: ErrorCode) -> String {
    let spent = spent(code);
    format!(
        "No more tools can be called: {spent}. Reply to the user now, in plain text, from what the tool results above show."
    )
}

/// The system-prompt instruction of the prompt strategy, carrying the schema.
pub fn prompt_instruction(schema: &Value) -> String {
    format!(
        "When you give your final answer, reply with one JSON value and nothing else. \
         It must conform to this JSON Schema:\n{schema}"
    )
}
