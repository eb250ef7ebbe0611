//! [`RunReport`]: the serialisable record of one run.
//!
//! Invariant: a report never holds the model's text for a failed answer — an
//! error outcome is only its [`ErrorCode`].

use crate::backend::{BackendError, BackendErrorKind, Stage};
use crate::conversation::{Conversation, Usage};
use crate::error::ErrorCode;
use crate::json::ExtractedFrom;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunOutcome {
    /// A valid final answer (decoded, validated against the owner schema).
    Ok {
        /// The answer.
        value: Value,
    },
    /// The run failed; only the stable code is kept.
    Error {
        /// Why.
        code: ErrorCode,
    },
}

impl RunOutcome {
    /// The error code, if the run failed.
    pub fn error_code(&self) -> Option<ErrorCode> {
        match self {
            RunOutcome::Ok { .. } => None,
            RunOutcome::Error { code } => Some(*code),
        }
    }

    /// The answer, if the run succeeded.
    pub fn value(&self) -> Option<&Value> {
        match self {
            RunOutcome::Ok { value } => Some(value),
            RunOutcome::Error { .. } => None,
        }
    }
}

/// What is known of the backend failure that ended a run with
/// `backend_error`, beyond the code: its kind, HTTP status, the provider's
/// error type, the stage it failed at and a short detail written by
/// tribunal. Never the provider's message — provider messages can quote
/// the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendFailure {
    /// What kind of failure it was.
    pub kind: BackendErrorKind,
    /// The HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's error type (e.g. `invalid_api_key`), when it gave a
    /// plain identifier (at most 64 of `[A-Za-z0-9_.-]`; anything else is
    /// dropped rather than stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_type: Option<String>,
    /// Where in the request it failed (`first_byte`, `stream_idle`, …),
    /// when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// What a person reads first: tribunal's own words on what it saw (the
    /// stage, status, URL, what the body was), at most
    /// [`MAX_DETAIL_CHARS`] characters ([`BackendError::detail`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The longest [`BackendFailure::detail`], in characters.
pub const MAX_DETAIL_CHARS: usize = 200;

impl BackendFailure {
    /// The storable part of `error`.
    pub fn of(error: &BackendError) -> Self {
        BackendFailure {
            kind: error.kind,
            status: error.status,
            provider_type: error
                .provider_type
                .as_deref()
                .filter(|t| crate::text::is_identifier(t))
                .map(str::to_string),
            stage: error.stage,
            detail: error.detail.as_deref().map(|d| {
                crate::text::clip(d, crate::text::Limit::Chars(MAX_DETAIL_CHARS)).to_string()
            }),
        }
    }
}

impl std::fmt::Display for BackendFailure {
    /// `HTTP 401 invalid_api_key`, `transport`, `HTTP 503`, then the
    /// detail when there is one: `transport: the answer from … stopped: no byte for 60 s …`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Some(status) => write!(f, "HTTP {status}")?,
            None => f.write_str(self.kind.as_str())?,
        }
        if let Some(t) = &self.provider_type {
            write!(f, " {t}")?;
        }
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        Ok(())
    }
}

/// One executed tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The tool name as the model wrote it.
    pub name: String,
    /// The raw argument text.
    pub arguments: String,
    /// Whether the call succeeded (a repeated call did not run: `false`).
    pub ok: bool,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
    /// Whether it repeated an earlier call of the run (same name and
    /// arguments) and was answered with a pointer to that call's result
    /// instead of running again. It still counted toward `max_tool_calls`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
    /// Whether the model wrote the call into its text and the loop read it
    /// from there ([`OutputPlan::read_text_calls`](crate::output::OutputPlan::read_text_calls)):
    /// the server returned no call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_text: bool,
}

/// The record of one run.
///
/// `#[non_exhaustive]`: a later release may record more of a run. Build
/// one with [`RunReport::failed`] or [`RunReport::answered`] and set the
/// fields you need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunReport {
    /// The outcome.
    pub outcome: RunOutcome,
    /// Whether the one repair turn was used.
    pub repair_used: bool,
    /// Where the accepted answer's JSON was found.
    pub extracted_from: Option<ExtractedFrom>,
    /// Usage over every turn, the repair included.
    pub usage: Usage,
    /// Every tool call executed.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model turns taken (repair and finalize included).
    pub turns: u32,
    /// Wall time of the run, in milliseconds.
    pub wall_ms: f64,
    /// Why the tool phase ended early when the run went to the one
    /// tools-disabled finalize turn: a budget (`on_budget = finalize`), or
    /// [`ErrorCode::ToolCallsRepeated`] (`on_repeat = finalize`).
    pub finalized_after: Option<ErrorCode>,
    /// Set when the run ended with `backend_error`: the failure's kind,
    /// status and provider error type (no message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_failure: Option<BackendFailure>,
    /// With an approval policy: what approval did with each call it saw
    /// (asked, denied, changed), in order. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<crate::approval::ApprovalRecord>,
}

impl RunReport {
    /// The report of a run that ended with `code` before any model turn.
    pub fn failed(code: ErrorCode) -> Self {
        RunReport {
            outcome: RunOutcome::Error { code },
            repair_used: false,
            extracted_from: None,
            usage: Usage::default(),
            tool_calls: Vec::new(),
            turns: 0,
            wall_ms: 0.0,
            finalized_after: None,
            backend_failure: None,
            approvals: Vec::new(),
        }
    }

    /// The report of a run whose accepted answer is `value`, in one turn
    /// with no tool call (set the other fields as the run went).
    pub fn answered(value: serde_json::Value) -> Self {
        RunReport {
            outcome: RunOutcome::Ok { value },
            turns: 1,
            ..RunReport::failed(ErrorCode::InternalError)
        }
    }

    /// Whether the run produced a valid answer.
    pub fn is_ok(&self) -> bool {
        matches!(self.outcome, RunOutcome::Ok { .. })
    }
}

/// Why a model request is made, as the machine's users see it
/// ([`Machine::request_purpose`](crate::machine::Machine::request_purpose)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestPurpose {
    /// An agent turn: the model may call tools or answer.
    Agent,
    /// The tool phase ended for this reason (a budget under `on_budget =
    /// "finalize"`, or [`ErrorCode::ToolCallsRepeated`] under `on_repeat =
    /// "finalize"`): one tools-disabled request for the answer from what was
    /// found.
    Finalize(ErrorCode),
    /// The one repair turn after an invalid answer, tools disabled.
    Repair,
}

/// A finished run: its report and the conversation, for follow-up questions.
#[derive(Debug, Clone)]
pub struct Run {
    /// The report.
    pub report: RunReport,
    /// The conversation as it ended.
    pub conversation: Conversation,
}
