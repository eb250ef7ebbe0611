//! [`RunEvent`]: what happens in a run, in order, as
//! [`Agent::run_stream`](crate::Agent::run_stream) reports it, and
//! [`RunStream`], the stream of them.

use crate::approval::{ApprovalRecord, PendingCall};
use crate::backend::Delta;
use crate::conversation::{ToolCall, ToolResult};
use crate::report::RequestPurpose;
use crate::report::Run;
use crate::snapshot::{RunEnd, RunSnapshot};
use futures::Stream;
use futures::future::BoxFuture;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};
use std::task::{Context, Poll};
use std::time::Duration;

/// One thing that happened in a run.
///
/// The events are a view of the run, not a second source of truth: the
/// [`Run`] in [`RunEvent::Finished`] is the same one [`Agent::run`]
/// returns for the same answers.
///
/// [`Agent::run`]: crate::Agent::run
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RunEvent {
    /// A model request goes out: `turn` counts requests from 1, `purpose`
    /// says why (an agent turn, a finalize turn, or the one repair).
    ModelCall {
        /// The request's number in the run, from 1.
        turn: u32,
        /// Why it is made.
        purpose: RequestPurpose,
    },
    /// More of the model's text: under the `native` and `prompt`
    /// strategies, the final answer as it is written.
    TextDelta(String),
    /// More of one tool call's JSON arguments. Under the `tool` strategy
    /// the final answer streams this way, as the answer tool's
    /// ([`ANSWER_TOOL`](crate::output::ANSWER_TOOL)) arguments in the
    /// provider's wire form.
    ToolArgumentsDelta {
        /// The call's position in its turn, from 0.
        index: usize,
        /// The tool called.
        name: String,
        /// The next characters of the arguments' JSON text.
        fragment: String,
    },
    /// The answer streaming in broke off or stalled and is asked for again
    /// (within the backend's retries): the `TextDelta` and
    /// `ToolArgumentsDelta` events since the last `ModelCall` are void, and
    /// those that follow start the answer anew. The turn the loop acts on
    /// is only ever the complete answer.
    Restart,
    /// The model's turn asked for these tool calls and they run now (calls
    /// that repeat an earlier call of the run are answered without running
    /// and are not in it; a batch over `max_tool_calls` never runs).
    ToolCalls(Arc<[ToolCall]>),
    /// One tool call finished: the result the model will read.
    ToolResult {
        /// The result (`is_error` for invalid arguments, tool errors,
        /// panics and timeouts).
        result: ToolResult,
        /// How long the call took.
        duration: Duration,
    },
    /// A tool call waits for an approver's decision (the run's deadline
    /// keeps running).
    ApprovalRequested(PendingCall),
    /// What approval did with a call: asked and decided, or a `deny` tool's
    /// call refused without asking.
    Approval(ApprovalRecord),
    /// The run paused at an approval point (a pausable stream,
    /// [`Agent::start_stream`](crate::Agent::start_stream)): the snapshot
    /// [`Agent::resume`](crate::Agent::resume) continues. The last event of
    /// a paused run, instead of `Finished`.
    Paused(Box<RunSnapshot>),
    /// The run is over: its report and conversation. Always the last event.
    Finished(Box<Run>),
}

impl From<Delta> for RunEvent {
    fn from(delta: Delta) -> Self {
        match delta {
            Delta::Text(text) => RunEvent::TextDelta(text),
            Delta::ToolArguments {
                index,
                name,
                fragment,
            } => RunEvent::ToolArgumentsDelta {
                index,
                name,
                fragment,
            },
            Delta::Restart => RunEvent::Restart,
        }
    }
}

/// Where the driver sends a run's events.
pub type EventSink<'a> = &'a (dyn Fn(RunEvent) + Send + Sync);

/// A run as a [`Stream`] of [`RunEvent`]s, ending with
/// [`RunEvent::Finished`]. The run makes progress only while the stream is
/// polled; dropping the stream cancels the run (and its tool calls).
#[must_use = "a run stream does nothing unless polled"]
pub struct RunStream<'a> {
    run: Option<Running<'a>>,
    events: Receiver<RunEvent>,
    finished: Option<RunEvent>,
}

/// The run a stream polls.
enum Running<'a> {
    /// A run that cannot pause.
    Whole(BoxFuture<'a, Run>),
    /// A run that may pause.
    Pausable(BoxFuture<'a, RunEnd>),
}

impl Running<'_> {
    /// Polls the run; when it is over, its last event.
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<RunEvent> {
        match self {
            Running::Whole(run) => run
                .as_mut()
                .poll(cx)
                .map(|run| RunEvent::Finished(Box::new(run))),
            Running::Pausable(run) => run.as_mut().poll(cx).map(|end| match end {
                RunEnd::Finished(run) => RunEvent::Finished(run),
                RunEnd::Paused(snapshot) => RunEvent::Paused(snapshot),
            }),
        }
    }
}

impl<'a> RunStream<'a> {
    /// A stream over `run`, a run future that sends its events to the
    /// sender paired with `events`.
    pub(crate) fn new(run: BoxFuture<'a, Run>, events: Receiver<RunEvent>) -> Self {
        RunStream {
            run: Some(Running::Whole(run)),
            events,
            finished: None,
        }
    }

    /// A stream over `run`, a pausable run: its last event is
    /// [`RunEvent::Paused`] when it pauses.
    pub(crate) fn pausable(run: BoxFuture<'a, RunEnd>, events: Receiver<RunEvent>) -> Self {
        RunStream {
            run: Some(Running::Pausable(run)),
            events,
            finished: None,
        }
    }

    /// A channel whose sending half is an event sink for a run.
    pub(crate) fn channel() -> (
        impl Fn(RunEvent) + Send + Sync + 'static,
        Receiver<RunEvent>,
    ) {
        let (sender, receiver): (Sender<RunEvent>, Receiver<RunEvent>) = std::sync::mpsc::channel();
        // The receiver lives as long as the stream that polls the run, so a
        // failed send means nobody is listening: nothing to do.
        let send = move |event: RunEvent| {
            let _ = sender.send(event);
        };
        (send, receiver)
    }
}

impl std::fmt::Debug for RunStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.run.is_some())
            .finish_non_exhaustive()
    }
}

impl Stream for RunStream<'_> {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        // Events are only sent while the run is polled, here, on this task:
        // whatever the last poll produced is queued and comes out first.
        if let Ok(event) = self.events.try_recv() {
            return Poll::Ready(Some(event));
        }
        if let Some(run) = self.run.as_mut() {
            match run.poll(cx) {
                Poll::Ready(done) => {
                    self.run = None;
                    self.finished = Some(done);
                }
                Poll::Pending => {
                    return match self.events.try_recv() {
                        Ok(event) => Poll::Ready(Some(event)),
                        Err(_) => Poll::Pending,
                    };
                }
            }
        }
        if let Ok(event) = self.events.try_recv() {
            return Poll::Ready(Some(event));
        }
        Poll::Ready(self.finished.take())
    }
}
