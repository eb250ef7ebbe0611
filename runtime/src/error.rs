//! Stable error codes and the runtime's error types.
//!
//! Codes are data: reports and tests compare [`ErrorCode`] values (or their
//! [`ErrorCode::as_str`] spelling), never `Display` text.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The stable, snake_case reason a run (or a final answer) failed.
///
/// This list is the one place the codes are documented; their spelling is a
/// public contract used by reports, result files and scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The final answer contained no JSON value at all.
    NoJson,
    /// The final answer had JSON that could not be accepted: malformed, NaN or
    /// Infinity, a number out of range, a duplicate key in one object, or
    /// nesting deeper than the configured limit.
    InvalidJson,
    /// The answer was cut off: an unbalanced JSON span, or a stop reason of
    /// length / max_tokens.
    Truncated,
    /// The answer ran away while it streamed in — it repeated one passage,
    /// or wrote a long blank stretch — and was cut there
    /// (`cut_runaway`, on by default on the HTTP backends).
    Runaway,
    /// The answer was larger than the configured size limit.
    TooLarge,
    /// The JSON parsed but did not validate against the owner schema (or a
    /// JSON-encoded field could not be decoded).
    SchemaMismatch,
    /// The model refused, or the provider's content filter stopped it.
    Refused,
    /// The model asked for more tool calls than `max_tool_calls` allows.
    MaxToolCallsExceeded,
    /// Cumulative input + output tokens went over `max_tokens`.
    MaxTokensExceeded,
    /// What the run spent went over its cost budget (`max_cost_usd`).
    MaxCostExceeded,
    /// The run needed more model turns than `max_turns` allows.
    MaxTurnsExceeded,
    /// Every tool call of a turn repeated an earlier call of the run. Not an
    /// ending: under `on_repeat = "finalize"` (the default) it is the reason a
    /// run was asked for its answer with tools disabled
    /// (`RunReport::finalized_after`), as an exhausted budget is.
    ToolCallsRepeated,
    /// A turn's tool calls ran and their results held nothing earlier
    /// results of the run had not shown. Not an ending: under
    /// `on_nothing_new = "finalize"` it is the reason a run was asked for its
    /// answer with tools disabled (`RunReport::finalized_after`).
    NothingNew,
    /// The model made no progress for `max_idle_turns` turns in a row: it
    /// wrote text, neither a tool call nor an answer, while a tool call was
    /// required (`require_tool_first`, after the nudge naming the tools).
    NoProgress,
    /// The run's wall-clock deadline passed.
    DeadlineExceeded,
    /// The backend failed (HTTP error, connection failure, exhausted script).
    BackendError,
    /// An approver ended the run at a tool call ([`Decision::Terminate`](crate::approval::Decision::Terminate)).
    ApprovalTerminated,
    /// A tool call waited for a decision nobody made: an approver answered
    /// [`Decision::Later`](crate::approval::Decision::Later) in a run that
    /// cannot pause (`Agent::run`; `Agent::start` pauses instead), or the
    /// machine was driven without an approver.
    ApprovalPending,
    /// A run snapshot was refused: taken by an agent with another
    /// configuration (tools, their schemas, the answer schema, budgets).
    /// Never a run's ending: the code of a refused `Agent::resume`.
    SnapshotMismatch,
    /// A run snapshot was refused: written in a format version this build
    /// does not read. Never a run's ending.
    SnapshotVersion,
    /// A run snapshot was refused: not valid JSON, or not a run snapshot, or
    /// one whose parts disagree. Never a run's ending.
    SnapshotInvalid,
    /// In a conversation, an agent turn ended with no text for the user,
    /// twice (the one repair asked for a reply).
    EmptyReply,
    /// In a conversation, the user simulator failed: its backend failed,
    /// it wrote nothing, or it wrote more than a user message may hold.
    UserSimulatorFailed,
    /// A tool server the run's world depends on (an arena's `per_run` MCP
    /// server, started in the run's copy) could not start or stopped during
    /// the run: the world's state is unknown, so the run is not scored.
    ToolServerFailed,
    /// A bug in tribunal, not in the model or the backend: the loop's driver
    /// fed the machine an input it had not asked for, or took the report of a
    /// run before its end. Please report it with the run's trace.
    InternalError,
}

impl ErrorCode {
    /// Every code, in documentation order.
    pub const ALL: [ErrorCode; 25] = [
        ErrorCode::NoJson,
        ErrorCode::InvalidJson,
        ErrorCode::Truncated,
        ErrorCode::Runaway,
        ErrorCode::TooLarge,
        ErrorCode::SchemaMismatch,
        ErrorCode::Refused,
        ErrorCode::MaxToolCallsExceeded,
        ErrorCode::MaxTokensExceeded,
        ErrorCode::MaxCostExceeded,
        ErrorCode::MaxTurnsExceeded,
        ErrorCode::ToolCallsRepeated,
        ErrorCode::NothingNew,
        ErrorCode::NoProgress,
        ErrorCode::DeadlineExceeded,
        ErrorCode::BackendError,
        ErrorCode::ApprovalTerminated,
        ErrorCode::ApprovalPending,
        ErrorCode::SnapshotMismatch,
        ErrorCode::SnapshotVersion,
        ErrorCode::SnapshotInvalid,
        ErrorCode::EmptyReply,
        ErrorCode::UserSimulatorFailed,
        ErrorCode::ToolServerFailed,
        ErrorCode::InternalError,
    ];

    /// The stable snake_case spelling of this code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NoJson => "no_json",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::Truncated => "truncated",
            ErrorCode::Runaway => "runaway",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::SchemaMismatch => "schema_mismatch",
            ErrorCode::Refused => "refused",
            ErrorCode::MaxToolCallsExceeded => "max_tool_calls_exceeded",
            ErrorCode::MaxTokensExceeded => "max_tokens_exceeded",
            ErrorCode::MaxCostExceeded => "max_cost_exceeded",
            ErrorCode::MaxTurnsExceeded => "max_turns_exceeded",
            ErrorCode::ToolCallsRepeated => "tool_calls_repeated",
            ErrorCode::NothingNew => "nothing_new",
            ErrorCode::NoProgress => "no_progress",
            ErrorCode::DeadlineExceeded => "deadline_exceeded",
            ErrorCode::BackendError => "backend_error",
            ErrorCode::ApprovalTerminated => "approval_terminated",
            ErrorCode::ApprovalPending => "approval_pending",
            ErrorCode::SnapshotMismatch => "snapshot_mismatch",
            ErrorCode::SnapshotVersion => "snapshot_version",
            ErrorCode::SnapshotInvalid => "snapshot_invalid",
            ErrorCode::EmptyReply => "empty_reply",
            ErrorCode::UserSimulatorFailed => "user_simulator_failed",
            ErrorCode::ToolServerFailed => "tool_server_failed",
            ErrorCode::InternalError => "internal_error",
        }
    }

    /// Parses a code from its stable spelling.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A schema the runtime cannot use: malformed, or using a feature that cannot
/// be compiled for a provider. Raised when the schema is loaded or compiled,
/// never in the middle of a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schema error at {path}: {message}")]
pub struct SchemaError {
    /// JSON Pointer into the owner schema where the problem is (`""` is the root).
    pub path: String,
    /// What is wrong, in one line.
    pub message: String,
}

impl SchemaError {
    /// Creates a schema error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaError {
            path: path.into(),
            message: message.into(),
        }
    }
}
