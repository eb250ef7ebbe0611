//! [`RunSnapshot`]: a run paused at an approval point, as a versioned,
//! serialisable value that another process resumes
//! ([`Agent::resume`](crate::Agent::resume)); and [`RunEnd`], how a pausable
//! run ends (finished, or paused).
//!
//! # The snapshot format, version 1
//!
//! One JSON object (`RunSnapshot::to_json` / `RunSnapshot::from_json`):
//!
//! | field | what it holds |
//! |---|---|
//! | `version` | `1`. A reader refuses any other version with [`ErrorCode::SnapshotVersion`] before reading anything else |
//! | `config` | the [`ConfigDigest`] of the agent that paused: `tools` (each tool's name, description and parameter schema as offered), `answer` (the answer format's name, its wire schema and the output plan), `settings` (budgets, answer policy, output-token ceiling, tool-first). `sha256:` + hex of the JSON with sorted keys. A resuming agent whose digest differs in any part is refused with [`ErrorCode::SnapshotMismatch`], naming the part |
//! | `state` | where the run stopped: `"awaiting_approval"` (the only state a run pauses in) |
//! | `conversation` | the system prompt and every message so far, as [`Conversation`] serialises; the last one is the assistant turn whose calls wait |
//! | `calls` | that turn's calls, in order: `id`, `tool`, and `status` — `pending` (no decision yet), `run` (approved), `run_with` (approved with `arguments`), `not_run` (the `result` the model will read: rejected, denied, refused change), `repeat` (repeats an earlier call: answered with a pointer to it) |
//! | `turns`, `usage`, `tool_calls_counted` | model turns taken, tokens used, tool calls counted against `max_tool_calls` before this turn |
//! | `tool_calls` | the report's tool-call records so far ([`ToolCallRecord`]) |
//! | `approvals` | the approval records so far ([`ApprovalRecord`]), this turn's decided calls included |
//! | `seen_calls` | the run's distinct calls so far, as `[message, call]` places in `conversation` (to answer a repeat) |
//! | `elapsed_ms` | running time before the pause |
//! | `deadline_left_ms` | the deadline's time left at the pause; absent without a deadline |
//!
//! **Time.** The deadline is wall time while the run runs, including while
//! a call waits for an approver; the time a run spends paused does not
//! count: a resumed run gets the `deadline_left_ms` it paused with, and its
//! report's `wall_ms` adds `elapsed_ms` to the time since the resume.
//!
//! **Trust.** A snapshot holds decisions already made (`run`, `run_with`):
//! whoever can write it can approve a call, so keep it where only the
//! approver can write. A resumed run checks `run_with` arguments against the
//! tool's schema again (a change that no longer fits: `snapshot_invalid`).
//!
//! **Never in a snapshot:** an API key, a header, the backend's address or
//! anything else of the backend (the resuming agent brings its own); the
//! approver (likewise).

use crate::approval::{ApprovalRecord, CallState, PendingCall};
use crate::conversation::{Conversation, Message, Usage};
use crate::error::ErrorCode;
use crate::report::{Run, ToolCallRecord};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The snapshot format version this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// A run paused at an approval point: everything needed to continue it in
/// another process with the same agent configuration. See
/// runtime/src/snapshot.rs for the format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunSnapshot {
    version: u32,
    config: ConfigDigest,
    state: PausedAt,
    conversation: Conversation,
    pub(crate) calls: Vec<CallSnapshot>,
    pub(crate) turns: u32,
    pub(crate) usage: Usage,
    pub(crate) tool_calls_counted: u32,
    pub(crate) tool_calls: Vec<ToolCallRecord>,
    pub(crate) approvals: Vec<ApprovalRecord>,
    pub(crate) seen_calls: Vec<[usize; 2]>,
    elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline_left_ms: Option<u64>,
}

/// Where a run paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum PausedAt {
    /// At a turn's tool calls, before they run.
    AwaitingApproval,
}

/// One call of the paused turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CallSnapshot {
    pub(crate) id: String,
    pub(crate) tool: String,
    #[serde(flatten)]
    pub(crate) state: CallState,
}

/// What the parts of an agent's configuration a run depends on hash to.
/// Each part is `sha256:` and the hex digest of its JSON with sorted keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ConfigDigest {
    /// The tools offered: names, descriptions, parameter schemas.
    pub tools: String,
    /// The answer format: its name, wire schema and the output plan.
    pub answer: String,
    /// Budgets, the answer policy, the output-token ceiling, tool-first.
    pub settings: String,
}

impl ConfigDigest {
    /// The first part that differs from `other`, by name.
    pub fn first_difference(&self, other: &ConfigDigest) -> Option<&'static str> {
        if self.tools != other.tools {
            Some("tools")
        } else if self.answer != other.answer {
            Some("answer")
        } else if self.settings != other.settings {
            Some("settings")
        } else {
            None
        }
    }
}

/// `sha256:` and the hex SHA-256 of `value` with sorted keys.
pub(crate) fn digest_of(value: &serde_json::Value) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(crate::json::sorted_keys(value).to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Why a snapshot cannot be resumed. Each has its own [`ErrorCode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Written in a format version this build does not read
    /// ([`ErrorCode::SnapshotVersion`]).
    #[error(
        "snapshot format version {found} is not supported (this build reads version {SNAPSHOT_VERSION})"
    )]
    Version {
        /// The version the snapshot says it is in.
        found: u64,
    },
    /// Not a run snapshot, or one whose parts disagree
    /// ([`ErrorCode::SnapshotInvalid`]).
    #[error("not a valid run snapshot: {reason}")]
    Invalid {
        /// What is wrong.
        reason: String,
    },
    /// Taken with another agent configuration
    /// ([`ErrorCode::SnapshotMismatch`]): `part` of the [`ConfigDigest`]
    /// differs.
    #[error("the snapshot was taken by an agent with other {part}")]
    Mismatch {
        /// `tools`, `answer` or `settings`.
        part: &'static str,
    },
}

impl SnapshotError {
    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            SnapshotError::Version { .. } => ErrorCode::SnapshotVersion,
            SnapshotError::Invalid { .. } => ErrorCode::SnapshotInvalid,
            SnapshotError::Mismatch { .. } => ErrorCode::SnapshotMismatch,
        }
    }

    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        SnapshotError::Invalid {
            reason: reason.into(),
        }
    }
}

/// What the machine hands over to make a snapshot.
pub(crate) struct SnapshotParts {
    pub(crate) config: ConfigDigest,
    pub(crate) conversation: Conversation,
    pub(crate) calls: Vec<CallSnapshot>,
    pub(crate) turns: u32,
    pub(crate) usage: Usage,
    pub(crate) tool_calls_counted: u32,
    pub(crate) tool_calls: Vec<ToolCallRecord>,
    pub(crate) approvals: Vec<ApprovalRecord>,
    pub(crate) seen_calls: Vec<[usize; 2]>,
    pub(crate) elapsed: Duration,
    pub(crate) deadline_left: Option<Duration>,
}

impl RunSnapshot {
    pub(crate) fn from_parts(parts: SnapshotParts) -> Self {
        RunSnapshot {
            version: SNAPSHOT_VERSION,
            config: parts.config,
            state: PausedAt::AwaitingApproval,
            conversation: parts.conversation,
            calls: parts.calls,
            turns: parts.turns,
            usage: parts.usage,
            tool_calls_counted: parts.tool_calls_counted,
            tool_calls: parts.tool_calls,
            approvals: parts.approvals,
            seen_calls: parts.seen_calls,
            elapsed_ms: millis(parts.elapsed),
            deadline_left_ms: parts.deadline_left.map(millis),
        }
    }

    /// The snapshot as pretty-printed JSON.
    pub fn to_json(&self) -> Result<String, SnapshotError> {
        serde_json::to_string_pretty(self).map_err(|e| SnapshotError::invalid(e.to_string()))
    }

    /// Reads a snapshot. An unknown `version` is refused before anything
    /// else is read ([`SnapshotError::Version`]); anything else that is not
    /// a version-1 snapshot is [`SnapshotError::Invalid`]. Never panics.
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        let snapshot: RunSnapshot = read_versioned(text, SNAPSHOT_VERSION)?;
        snapshot.check()?;
        Ok(snapshot)
    }

    /// Checks that the parts agree: the last message is the assistant turn
    /// whose calls `calls` lists, one for one.
    pub(crate) fn check(&self) -> Result<(), SnapshotError> {
        if self.version != SNAPSHOT_VERSION {
            return Err(SnapshotError::Version {
                found: u64::from(self.version),
            });
        }
        let Some(Message::Assistant { tool_calls, .. }) = self.conversation.messages.last() else {
            return Err(SnapshotError::invalid(
                "the conversation does not end with the turn whose calls wait",
            ));
        };
        let same = tool_calls.len() == self.calls.len()
            && tool_calls
                .iter()
                .zip(&self.calls)
                .all(|(c, s)| c.id == s.id && c.name == s.tool);
        if !same {
            return Err(SnapshotError::invalid(
                "`calls` are not the last turn's tool calls",
            ));
        }
        Ok(())
    }

    /// The format version (always [`SNAPSHOT_VERSION`] once read).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The digest of the configuration of the agent that paused.
    pub fn config_digest(&self) -> &ConfigDigest {
        &self.config
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The calls still waiting for a decision, in call order.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        let Some(Message::Assistant { tool_calls, .. }) = self.conversation.messages.last() else {
            return Vec::new();
        };
        self.calls
            .iter()
            .zip(tool_calls)
            .enumerate()
            .filter(|(_, (s, _))| matches!(s.state, CallState::Pending))
            .map(|(index, (_, call))| PendingCall::new(call.clone(), index, self.turns))
            .collect()
    }

    /// The model turns the run took before the pause (a scripted model
    /// resumes at its turn number `turns()`, counting from 0).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The approval records so far.
    pub fn approvals(&self) -> &[ApprovalRecord] {
        &self.approvals
    }

    /// Running time before the pause.
    pub fn elapsed(&self) -> Duration {
        Duration::from_millis(self.elapsed_ms)
    }

    /// The deadline's time left at the pause (what the resumed run gets).
    pub fn deadline_left(&self) -> Option<Duration> {
        self.deadline_left_ms.map(Duration::from_millis)
    }

    pub(crate) fn into_conversation(self) -> Conversation {
        self.conversation
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// How a pausable run ([`Agent::start`](crate::Agent::start),
/// [`Agent::resume`](crate::Agent::resume)) ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RunEnd {
    /// The run is over; its report holds the approval records
    /// ([`RunReport::approvals`](crate::RunReport::approvals)).
    Finished(Box<Run>),
    /// An approver said [`Decision::Later`](crate::approval::Decision::Later):
    /// the run, paused.
    Paused(Box<RunSnapshot>),
}

impl RunEnd {
    /// The finished run, if it finished.
    pub fn finished(self) -> Option<Run> {
        match self {
            RunEnd::Finished(run) => Some(*run),
            RunEnd::Paused(_) => None,
        }
    }

    /// The snapshot, if it paused.
    pub fn paused(self) -> Option<RunSnapshot> {
        match self {
            RunEnd::Paused(snapshot) => Some(*snapshot),
            RunEnd::Finished(_) => None,
        }
    }
}

/// A snapshot's JSON read as `T` once its `version` is `version`: another
/// version is [`SnapshotError::Version`], checked before anything else is
/// read; text that is not such JSON is [`SnapshotError::Invalid`].
pub(crate) fn read_versioned<T: serde::de::DeserializeOwned>(
    text: &str,
    version: u32,
) -> Result<T, SnapshotError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| SnapshotError::invalid(e.to_string()))?;
    match value.get("version").map(|v| v.as_u64()) {
        Some(Some(v)) if v == u64::from(version) => {}
        Some(Some(found)) => return Err(SnapshotError::Version { found }),
        Some(None) => return Err(SnapshotError::invalid("`version` is not a number")),
        None => return Err(SnapshotError::invalid("no `version`")),
    }
    serde_json::from_value(value).map_err(|e| SnapshotError::invalid(e.to_string()))
}
