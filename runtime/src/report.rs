//! [`RunReport`]: the serialisable record of one run.
//!
//! Invariant: a report never holds the model's text for a failed answer — an
//! error outcome is only its [`ErrorCode`].

use crate::conversation::Usage;
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

/// One executed tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The tool name as the model wrote it.
    pub name: String,
    /// The raw argument text.
    pub arguments: String,
    /// Whether the call succeeded.
    pub ok: bool,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
}

/// The record of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Set when a budget was hit and the answer came from the one
    /// tools-disabled finalize turn (`on_budget = finalize`).
    pub finalized_after: Option<ErrorCode>,
}

impl RunReport {
    /// Whether the run produced a valid answer.
    pub fn is_ok(&self) -> bool {
        matches!(self.outcome, RunOutcome::Ok { .. })
    }
}
