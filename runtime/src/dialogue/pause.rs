//! A conversation paused at an approval point inside an agent turn, as a
//! versioned, serialisable value ([`DialogueSnapshot`]): the dialogue's
//! state beside the paused turn's [`RunSnapshot`]. Pure, like the
//! [`Dialogue`]: [`Dialogue::pause`] makes one, [`Dialogue::resume`] reads
//! it back; `Agent::start_conversation` / `Agent::resume_conversation` drive
//! them.
//!
//! # The format, version 1
//!
//! One JSON object: `version` (`1`), `turn` (the paused agent turn's run
//! snapshot, its own format: the whole agent conversation so far ends with
//! the turn whose calls wait) and `dialogue`: the settings (`max_user_turns`,
//! `stop_marker`, `final_answer`, `max_user_tokens`), the `exchanges` so far,
//! `user_price`, the finished agent turns' reports (`agent_turns`), `agent_usage`,
//! `user_usage` and `tool_calls` counted over the conversation, `phase`
//! (`agent_turn` or `final_answer`: which run paused), `elapsed_ms` and
//! `deadline_left_ms`.
//!
//! **Budgets** go on across the pause: the conversation's tool calls and
//! tokens are restored, and its deadline gets the time it had left at the
//! pause (the time spent paused does not count, as for a run).
//!
//! **The user** is not in it: resume with the same simulator. A
//! `ModelUser` reads only the exchanges (in the snapshot); a `ScriptedUser`
//! remembers the lines it has said, so resume with the same value (in
//! another process, a new `ScriptedUser` would start its lines again).

use super::{Dialogue, DialogueConfig, DialogueEnd, Exchange, State, Step};
use crate::budget::Budget;
use crate::conversation::Usage;
use crate::report::RunReport;
use crate::snapshot::{RunSnapshot, SnapshotError};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The format version of a [`DialogueSnapshot`] this build writes and reads.
pub const DIALOGUE_SNAPSHOT_VERSION: u32 = 1;

/// A conversation paused at an approval point: see the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DialogueSnapshot {
    version: u32,
    dialogue: PausedDialogue,
    turn: RunSnapshot,
}

/// Which agent run of the conversation paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Phase {
    /// A reply turn.
    AgentTurn,
    /// The structured answer's run after the conversation.
    FinalAnswer,
}

/// The dialogue's part of a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PausedDialogue {
    max_user_turns: u32,
    stop_marker: String,
    final_answer: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_user_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user_price: Option<crate::cost::ModelPrice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    exchanges: Vec<Exchange>,
    agent_turns: Vec<RunReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    final_end: Option<DialogueEnd>,
    agent_usage: Usage,
    user_usage: Usage,
    tool_calls: u32,
    phase: Phase,
    elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline_left_ms: Option<u64>,
    /// The paused run's deadline as it was handed out (its budget's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn_deadline: Option<Duration>,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl DialogueSnapshot {
    /// The paused agent turn's run snapshot (its pending calls, its
    /// approvals so far).
    pub fn turn(&self) -> &RunSnapshot {
        &self.turn
    }

    /// The exchanges so far (the last one is the user message the paused
    /// turn answers).
    pub fn exchanges(&self) -> &[Exchange] {
        &self.dialogue.exchanges
    }

    /// The snapshot as pretty-printed JSON.
    pub fn to_json(&self) -> Result<String, SnapshotError> {
        serde_json::to_string_pretty(self).map_err(|e| SnapshotError::invalid(e.to_string()))
    }

    /// Reads a snapshot: an unknown `version` is refused first
    /// ([`SnapshotError::Version`]); anything else that is not a version-1
    /// conversation snapshot, or whose turn is not a valid run snapshot, is
    /// [`SnapshotError::Invalid`]. Never panics.
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        let snapshot: DialogueSnapshot =
            crate::snapshot::read_versioned(text, DIALOGUE_SNAPSHOT_VERSION)?;
        snapshot.turn.check()?;
        if snapshot.dialogue.exchanges.is_empty() {
            return Err(SnapshotError::invalid(
                "a paused conversation has at least the user message its turn answers",
            ));
        }
        Ok(snapshot)
    }
}

impl Dialogue {
    /// The conversation paused at `now`, its agent turn (the one handed out,
    /// a reply turn or the final answer's run) paused as `turn`. Refused
    /// (the dialogue and the turn handed back) when no agent run is out.
    #[allow(clippy::result_large_err)]
    pub fn pause(
        self,
        turn: RunSnapshot,
        now: Instant,
    ) -> Result<DialogueSnapshot, (Dialogue, RunSnapshot)> {
        let phase = match self.state {
            State::Agent(Step::Sent) => Phase::AgentTurn,
            State::Final(Step::Sent) => Phase::FinalAnswer,
            _ => return Err((self, turn)),
        };
        let dialogue = PausedDialogue {
            max_user_turns: self.config.max_user_turns,
            stop_marker: self.config.stop_marker,
            final_answer: self.config.final_answer,
            max_user_tokens: self.config.max_user_tokens,
            user_price: self.config.user_price,
            system: self.system,
            exchanges: self.exchanges,
            agent_turns: self.agent_turns,
            final_end: self.final_end,
            agent_usage: self.agent_usage,
            user_usage: self.user_usage,
            tool_calls: self.tool_calls,
            phase,
            elapsed_ms: millis(now.saturating_duration_since(self.started)),
            deadline_left_ms: self
                .deadline
                .map(|d| millis(d.saturating_duration_since(now))),
            turn_deadline: self.turn_deadline,
        };
        Ok(DialogueSnapshot {
            version: DIALOGUE_SNAPSHOT_VERSION,
            dialogue,
            turn,
        })
    }

    /// The conversation of `snapshot` resumed at `now` under the agent's
    /// `budget` (the conversation's; what was spent before the pause is
    /// counted), waiting for its paused agent run: the driver resumes
    /// `turn` and hands back its end ([`DialogueInput::AgentDone`](super::DialogueInput::AgentDone)).
    pub fn resume(
        snapshot: DialogueSnapshot,
        budget: Budget,
        now: Instant,
    ) -> (Dialogue, RunSnapshot) {
        let DialogueSnapshot {
            dialogue: d, turn, ..
        } = snapshot;
        let elapsed = Duration::from_millis(d.elapsed_ms);
        let dialogue = Dialogue {
            config: DialogueConfig {
                max_user_turns: d.max_user_turns,
                stop_marker: d.stop_marker,
                final_answer: d.final_answer,
                max_user_tokens: d.max_user_tokens,
                user_price: d.user_price,
            },
            budget,
            conversation: None,
            system: d.system,
            exchanges: d.exchanges,
            agent_turns: d.agent_turns,
            final_answer: None,
            final_end: d.final_end,
            agent_usage: d.agent_usage,
            user_usage: d.user_usage,
            tool_calls: d.tool_calls,
            // The wall time before the pause counts; the pause does not.
            started: now.checked_sub(elapsed).unwrap_or(now),
            deadline: d
                .deadline_left_ms
                .map(|left| now + Duration::from_millis(left)),
            turn_deadline: d.turn_deadline,
            ended_at: None,
            state: match d.phase {
                Phase::AgentTurn => State::Agent(Step::Sent),
                Phase::FinalAnswer => State::Final(Step::Sent),
            },
        };
        (dialogue, turn)
    }
}
