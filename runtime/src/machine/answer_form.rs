//! How a run's answer is read and asked for: a value of the contract's
//! schema, or text. The two text answers — a run's under `extraction =
//! "text"` ([`AnswerForm::of`]) and a conversation's reply to its user
//! ([`AnswerForm::REPLY`]) — are one form, [`AnswerForm::Text`]: the machine
//! finalizes and repairs both on one path, and what differs between them is
//! the data of their [`TextForm`]: how the text is read, and the words of the
//! finalize and repair requests.

use crate::answer::{
    AnswerPolicy, evaluate_answer, finalize_message, finalize_text_message, repair_message,
    reply_finalize_message, text_repair_message,
};
use crate::contract::{AnswerContract, Rejection};
use crate::conversation::StopReason;
use crate::error::ErrorCode;
use crate::json::{ExtractedFrom, ExtractionMode};
use crate::output::SchemaTarget;
use serde_json::Value;

use super::REPLY_REPAIR_MESSAGE;

/// How the machine reads a turn's answer.
#[derive(Debug, Clone, Copy)]
pub(super) enum AnswerForm {
    /// A value of the contract's schema: the answer tool's arguments, or
    /// JSON in the text, under the request's or the prompt's schema.
    Json,
    /// The turn's trimmed text, kept as a JSON string. No answer tool, no
    /// schema in the request or the system prompt.
    Text(TextForm),
}

/// What sets one text answer apart from the other, as data.
#[derive(Debug, Clone, Copy)]
pub(super) struct TextForm {
    /// How the text is read.
    reading: TextReading,
    /// The finalize request, `code` having ended the tool phase.
    finalize: fn(ErrorCode) -> String,
    /// The one repair's request after `rejection`.
    repair: fn(&Rejection) -> String,
}

/// How a text answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextReading {
    /// Through the answer pipeline (size, stop reason, the contract): a run's
    /// answer. An empty one is `no_json`.
    Checked,
    /// As written, whatever the stop reason: a refusal or a cut-off reply is
    /// still what the user reads. Only an empty one is rejected,
    /// [`ErrorCode::EmptyReply`].
    AsWritten,
}

/// An accepted answer: the value, and where in the text it was found (a
/// reply, taken as written, records none).
pub(super) struct Read {
    pub(super) value: Value,
    pub(super) extracted_from: Option<ExtractedFrom>,
}

impl AnswerForm {
    /// A conversation's agent turn: the reply to the user.
    pub(super) const REPLY: AnswerForm = AnswerForm::Text(TextForm {
        reading: TextReading::AsWritten,
        finalize: reply_finalize_message,
        repair: |_| REPLY_REPAIR_MESSAGE.to_string(),
    });

    /// A run's answer, as `policy` says: text under `extraction = "text"`,
    /// else a value of the schema.
    pub(super) fn of(policy: &AnswerPolicy) -> AnswerForm {
        if policy.mode != ExtractionMode::Text {
            return AnswerForm::Json;
        }
        AnswerForm::Text(TextForm {
            reading: TextReading::Checked,
            finalize: finalize_text_message,
            repair: text_repair_message,
        })
    }

    /// Reads the answer `text` of a turn that stopped for `stop`.
    pub(super) fn read(
        &self,
        contract: &dyn AnswerContract,
        target: SchemaTarget,
        text: &str,
        stop: StopReason,
        policy: &AnswerPolicy,
    ) -> Result<Read, Rejection> {
        if let AnswerForm::Text(form) = self
            && form.reading == TextReading::AsWritten
        {
            let text = text.trim();
            if text.is_empty() {
                return Err(Rejection::new(ErrorCode::EmptyReply, "the reply is empty"));
            }
            return Ok(Read {
                value: Value::String(text.to_string()),
                extracted_from: None,
            });
        }
        let accepted = evaluate_answer(contract, target, text, stop, policy)?;
        Ok(Read {
            value: accepted.value,
            extracted_from: Some(accepted.extracted_from),
        })
    }

    /// The finalize request's message; `answer_tool` names the answer tool
    /// under the tool strategy.
    pub(super) fn finalize_message(&self, code: ErrorCode, answer_tool: Option<&str>) -> String {
        match self {
            AnswerForm::Json => finalize_message(code, answer_tool),
            AnswerForm::Text(form) => (form.finalize)(code),
        }
    }

    /// The one repair's message after `rejection`.
    pub(super) fn repair_message(
        &self,
        rejection: &Rejection,
        answer_tool: Option<&str>,
    ) -> String {
        match self {
            AnswerForm::Json => repair_message(rejection, answer_tool),
            AnswerForm::Text(form) => (form.repair)(rejection),
        }
    }
}
