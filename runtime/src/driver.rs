//! The async driver: performs what the [`Machine`] decides. The only code of
//! the loop that awaits, reads the clock or calls a backend or a tool.

use crate::approval::Decision;
use crate::approver::Approver;
use crate::backend::{Backend, BackendErrorKind, Delta};
use crate::error::ErrorCode;
use crate::event::{EventSink, RunEvent};
use crate::machine::{Action, Input, Machine};
use crate::report::{Run, RunReport};
use crate::snapshot::{RunEnd, RunSnapshot};
use crate::telemetry;
use crate::tool::ToolBox;
use futures::FutureExt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::task::Poll;
use tokio::time::{Instant, Sleep};
use tracing::Instrument;

/// Drives `machine` to the end with `backend` and `tools`; returns the report
/// and the final conversation.
///
/// Every await is bounded by the machine's deadline, so a stalled model call,
/// a retry wait or a slow tool ends the run at the deadline.
pub fn drive<'a>(
    machine: Machine,
    backend: &'a dyn Backend,
    tools: &'a ToolBox,
) -> impl Future<Output = (RunReport, crate::conversation::Conversation)> + Send + 'a {
    // The machine lives on the heap: an `async fn` would hold it twice (as
    // its argument and as the local it drives), in every run's task.
    drive_boxed(Box::new(machine), backend, tools, None, None).map(Driven::into_finished)
}

/// [`drive`], sending what happens to `events` as it happens: each model
/// request ([`RunEvent::ModelCall`]), the answer's deltas as the backend
/// streams them ([`Backend::complete_streaming`]), the tool calls that run
/// and their results. The machine decides exactly as in [`drive`]: the
/// streamed turn is the turn, so the report is the same.
pub fn drive_with_events<'a>(
    machine: Machine,
    backend: &'a dyn Backend,
    tools: &'a ToolBox,
    events: EventSink<'a>,
) -> impl Future<Output = (RunReport, crate::conversation::Conversation)> + Send + 'a {
    drive_boxed(Box::new(machine), backend, tools, Some(events), None).map(Driven::into_finished)
}

/// [`drive`] for a machine with tool-call approval
/// ([`Machine::with_approval`]): each pending call is put to `approver`, in
/// call order, while the deadline runs; a [`Decision::Later`] pauses the run
/// into a [`RunSnapshot`] ([`RunEnd::Paused`]). `events`, when given, also
/// get each ask ([`RunEvent::ApprovalRequested`]) and each approval record
/// ([`RunEvent::Approval`]).
pub fn drive_approved<'a>(
    machine: Machine,
    backend: &'a dyn Backend,
    tools: &'a ToolBox,
    approver: &'a dyn Approver,
    events: Option<EventSink<'a>>,
) -> impl Future<Output = RunEnd> + Send + 'a {
    let approvals = Approvals {
        approver,
        can_pause: true,
    };
    drive_boxed(Box::new(machine), backend, tools, events, Some(approvals)).map(run_end)
}

/// How a pausable run ended.
pub(crate) fn run_end(driven: Driven) -> RunEnd {
    match driven {
        Driven::Finished(machine) => RunEnd::Finished(Box::new(finished_run(*machine))),
        Driven::Paused(snapshot) => RunEnd::Paused(snapshot),
    }
}

/// A finished machine's run (its report holds the approval records).
pub(crate) fn finished_run(machine: Machine) -> Run {
    let (report, conversation) = machine.into_parts();
    Run {
        report,
        conversation,
    }
}

/// Who answers a driven run's pending calls, and whether a `later` pauses
/// the run (else it ends it: `approval_pending`).
#[derive(Clone, Copy)]
pub(crate) struct Approvals<'a> {
    pub(crate) approver: &'a dyn Approver,
    pub(crate) can_pause: bool,
}

/// How [`drive_boxed`] stopped.
pub(crate) enum Driven {
    /// The run is over.
    Finished(Box<Machine>),
    /// The run paused at an approval point.
    Paused(Box<RunSnapshot>),
}

impl Driven {
    /// The report and conversation of a run that cannot pause.
    pub(crate) fn into_finished(self) -> (RunReport, crate::conversation::Conversation) {
        match self {
            Driven::Finished(machine) => machine.into_parts(),
            // Only a driver given `can_pause` pauses.
            Driven::Paused(snapshot) => (
                RunReport::failed(ErrorCode::InternalError),
                snapshot.into_conversation(),
            ),
        }
    }
}

pub(crate) async fn drive_boxed(
    mut machine: Box<Machine>,
    backend: &dyn Backend,
    tools: &ToolBox,
    events: Option<EventSink<'_>>,
    approvals: Option<Approvals<'_>>,
) -> Driven {
    // One timer for the whole run, raced with every await: registered once,
    // instead of a timer per model call and per tool batch.
    let mut deadline: Pin<&mut Option<Sleep>> = pin!(
        machine
            .deadline()
            .map(|d| tokio::time::sleep_until(d.into()))
    );
    let target = machine.target();
    let mut turn = 0u32;
    // Approval records already told to `events` and the spans.
    let mut told = machine.approvals().len();
    loop {
        let now = Instant::now().into_std();
        match machine.poll(now) {
            Some(Action::CallModel(request)) => {
                turn += 1;
                let purpose = machine.request_purpose();
                let span = telemetry::chat_span(
                    backend.name(),
                    backend.model(),
                    turn,
                    purpose,
                    request.max_output_tokens,
                );
                let deltas = |delta: Delta| {
                    if let Some(events) = events {
                        events(RunEvent::from(delta));
                    }
                };
                let mut call = match events {
                    Some(events) => {
                        if let Some(purpose) = purpose {
                            events(RunEvent::ModelCall { turn, purpose });
                        }
                        backend.complete_streaming(&request, &deltas)
                    }
                    None => backend.complete(&request),
                };
                let answer = bounded(deadline.as_mut().as_pin_mut(), call.as_mut())
                    .instrument(span.clone())
                    .await;
                drop(call);
                let input = match answer {
                    Some(Ok(t)) => {
                        telemetry::record_turn(&span, &t.usage, t.stop);
                        Input::Turn(t)
                    }
                    Some(Err(e)) if e.kind != BackendErrorKind::DeadlineCut => {
                        telemetry::record_failure(&span, e.kind.as_str());
                        // The one place the reason is told: the report
                        // keeps only its code and kind. The message is
                        // free of keys and request content.
                        tracing::warn!(backend = backend.name(), error = %e, "the model call failed");
                        Input::BackendFailed(e)
                    }
                    // The deadline cut the call: now, or (a replayed
                    // cassette's `cut` entry) when the run was recorded.
                    _ => {
                        telemetry::record_failure(&span, ErrorCode::DeadlineExceeded.as_str());
                        Input::DeadlineExceeded
                    }
                };
                // Release the request's share of the conversation first, so
                // the machine grows it in place instead of copying it.
                drop(request);
                machine.handle(input, Instant::now().into_std());
                // A turn's `deny` calls are refused at once.
                tell_approvals(&machine, &mut told, events, None);
            }
            Some(Action::CallTools(calls)) => {
                let span = tracing::debug_span!("tools", count = calls.len());
                if let Some(events) = events {
                    events(RunEvent::ToolCalls(calls.clone()));
                }
                let execution = pin!(tools.execute_all_for(target, &calls));
                let input = bounded(deadline.as_mut().as_pin_mut(), execution)
                    .instrument(span)
                    .await
                    .map(Input::ToolsDone)
                    .unwrap_or(Input::DeadlineExceeded);
                if let (Some(events), Input::ToolsDone(done)) = (events, &input) {
                    for execution in done {
                        events(RunEvent::ToolResult {
                            result: execution.result.clone(),
                            duration: execution.duration,
                        });
                    }
                }
                machine.handle(input, Instant::now().into_std());
                // The tools' world may be gone (a server that stopped).
                if let Some(code) = tools.halted() {
                    machine.halt(code, Instant::now().into_std());
                }
            }
            Some(Action::Done) => break,
            None => {
                let Some(pending) = machine.pending_approval() else {
                    break;
                };
                let span = telemetry::approval_span(&pending.call);
                if let Some(events) = events {
                    events(RunEvent::ApprovalRequested(pending.clone()));
                }
                let decision = match approvals {
                    Some(a) => {
                        let asked = pin!(a.approver.decide(&pending));
                        bounded(deadline.as_mut().as_pin_mut(), asked)
                            .instrument(span.clone())
                            .await
                    }
                    // Driven without an approver: nobody will decide.
                    None => Some(Decision::Later),
                };
                let now = Instant::now().into_std();
                match decision {
                    None => {
                        telemetry::record_failure(&span, ErrorCode::DeadlineExceeded.as_str());
                        machine.handle(Input::DeadlineExceeded, now);
                    }
                    Some(Decision::Later) if approvals.is_some_and(|a| a.can_pause) => {
                        match machine.snapshot(now) {
                            Some(snapshot) => {
                                telemetry::record_paused(&span);
                                return Driven::Paused(Box::new(snapshot));
                            }
                            // Not at an approval point after all: the machine decides.
                            None => machine.handle_decision(pending.index, Decision::Later, now),
                        }
                    }
                    Some(decision) => machine.handle_decision(pending.index, decision, now),
                }
                tell_approvals(&machine, &mut told, events, Some(&span));
            }
        }
    }
    Driven::Finished(machine)
}

/// Tells `events` and the spans of the approval records made since the
/// last `told`: `asked` is the span of the call just decided (a `deny`
/// call, never asked, gets a span of its own).
fn tell_approvals(
    machine: &Machine,
    told: &mut usize,
    events: Option<EventSink<'_>>,
    asked: Option<&tracing::Span>,
) {
    let records = machine.approvals();
    for record in records.get(*told..).unwrap_or_default() {
        match asked {
            Some(span) if record.outcome != crate::approval::ApprovalOutcome::Denied => {
                telemetry::record_approval(span, record.outcome);
            }
            _ => telemetry::denied_span(record),
        }
        if let Some(events) = events {
            events(RunEvent::Approval(record.clone()));
        }
    }
    *told = records.len();
}

/// Runs `fut` until the run's deadline timer fires; `None` if it fired
/// first. `fut` is polled first, so an answer that is ready at the deadline
/// still counts (as with `tokio::time::timeout`). Both are borrowed: the
/// caller's future holds them once, not once more per await.
fn bounded<'a, F: Future + ?Sized>(
    mut deadline: Option<Pin<&'a mut Sleep>>,
    mut fut: Pin<&'a mut F>,
) -> impl Future<Output = Option<F::Output>> + 'a {
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(out) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        match deadline.as_mut() {
            Some(timer) => timer.as_mut().poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    })
}
