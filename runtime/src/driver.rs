//! The async driver: performs what the [`Machine`] decides. The only code of
//! the loop that awaits, reads the clock or calls a backend or a tool.

use crate::backend::{Backend, BackendErrorKind, Delta};
use crate::error::ErrorCode;
use crate::event::{EventSink, RunEvent};
use crate::machine::{Action, Input, Machine};
use crate::report::RunReport;
use crate::telemetry;
use crate::tool::ToolBox;
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
    drive_boxed(Box::new(machine), backend, tools, None)
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
    drive_boxed(Box::new(machine), backend, tools, Some(events))
}

async fn drive_boxed(
    mut machine: Box<Machine>,
    backend: &dyn Backend,
    tools: &ToolBox,
    events: Option<EventSink<'_>>,
) -> (RunReport, crate::conversation::Conversation) {
    // One timer for the whole run, raced with every await: registered once,
    // instead of a timer per model call and per tool batch.
    let mut deadline: Pin<&mut Option<Sleep>> = pin!(
        machine
            .deadline()
            .map(|d| tokio::time::sleep_until(d.into()))
    );
    let target = machine.target();
    let mut turn = 0u32;
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
            }
            Some(Action::Done) | None => break,
        }
    }
    machine.into_parts()
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
