//! [`Delta`]: a piece of an assistant turn as it streams in, and
//! [`DeltaSink`], where a streaming call sends the pieces.
//!
//! Deltas are a preview. The turn a streaming call returns is what the loop
//! acts on, and it is the same turn the call would have returned unstreamed:
//! a consumer that drops every delta loses nothing the run depends on.

use crate::conversation::ModelTurn;

/// A piece of an assistant turn, in the order the provider sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta {
    /// More of the turn's text.
    Text(String),
    /// More of one tool call's JSON arguments.
    ToolArguments {
        /// The call's position in the turn, from 0.
        index: usize,
        /// The tool called (empty if the provider has not named it yet).
        name: String,
        /// The next characters of the arguments' JSON text.
        fragment: String,
    },
    /// The answer broke off or stalled and is asked for again
    /// ([`Retry`](super::Retry)): every delta sent since the request went
    /// out is void, and the deltas that follow start the answer anew.
    Restart,
}

/// Where a streaming call sends its deltas: called in order, on the task
/// that awaits the call, never after the call returns.
pub type DeltaSink<'a> = &'a (dyn Fn(Delta) + Send + Sync);

/// Sends a whole turn to `sink` as if it had streamed in one piece: its
/// text, then each tool call's arguments. What a backend that cannot stream
/// (scripted, replayed, cached) gives a streaming caller.
pub(super) fn send_whole(turn: &ModelTurn, sink: DeltaSink<'_>) {
    if !turn.text.is_empty() {
        sink(Delta::Text(turn.text.clone()));
    }
    for (index, call) in turn.tool_calls.iter().enumerate() {
        sink(Delta::ToolArguments {
            index,
            name: call.name.clone(),
            fragment: call.arguments.clone(),
        });
    }
}
