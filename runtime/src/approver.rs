//! [`Approver`]: who decides on a pending tool call, and three of them — a
//! closure ([`approver_fn`]), a fixed table for tests and scripted runs
//! ([`ScriptedApprover`]), and a channel to a UI ([`ChannelApprover`]).
//!
//! The driver asks the approver for each pending call in call order and
//! waits for it within the run's deadline (a call waiting for approval
//! still spends the run's time; only a paused run does not).

use crate::approval::{Decision, PendingCall};
use futures::future::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::Mutex;

/// Decides on pending tool calls. Asked once per `ask` call, in call order;
/// the answer may take as long as the run's deadline allows.
pub trait Approver: Send + Sync {
    /// The decision for `call`.
    fn decide<'a>(&'a self, call: &'a PendingCall) -> BoxFuture<'a, Decision>;
}

/// An approver from a closure: [`approver_fn`].
pub struct FnApprover<F> {
    f: F,
}

impl<F> std::fmt::Debug for FnApprover<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnApprover")
    }
}

/// An approver that calls `f` with a copy of each pending call.
///
/// ```
/// use tribunal_runtime::Decision;
/// use tribunal_runtime::approver_fn;
/// let approver = approver_fn(|pending| async move {
///     if pending.call.arguments.contains("/etc") {
///         Decision::reject("not under /etc")
///     } else {
///         Decision::approve()
///     }
/// });
/// # let _ = approver;
/// ```
pub fn approver_fn<F, Fut>(f: F) -> FnApprover<F>
where
    F: Fn(PendingCall) -> Fut + Send + Sync,
    Fut: Future<Output = Decision> + Send + 'static,
{
    FnApprover { f }
}

impl<F, Fut> Approver for FnApprover<F>
where
    F: Fn(PendingCall) -> Fut + Send + Sync,
    Fut: Future<Output = Decision> + Send + 'static,
{
    fn decide<'a>(&'a self, call: &'a PendingCall) -> BoxFuture<'a, Decision> {
        Box::pin((self.f)(call.clone()))
    }
}

/// A fixed table of decisions: each tool's own list first (in order), then
/// the shared list, then the fallback (default [`Decision::Later`]: nobody
/// decided). For tests and for scripted (mock) runs, whose decision list is
/// data (`Decision` deserialises from `{"decision": "approve"}` and the like).
#[derive(Debug)]
pub struct ScriptedApprover {
    by_tool: Mutex<HashMap<String, VecDeque<Decision>>>,
    shared: Mutex<VecDeque<Decision>>,
    fallback: Decision,
}

impl ScriptedApprover {
    /// Answers the n-th ask with the n-th of `decisions`, then the fallback.
    pub fn new(decisions: impl IntoIterator<Item = Decision>) -> Self {
        ScriptedApprover {
            by_tool: Mutex::new(HashMap::new()),
            shared: Mutex::new(decisions.into_iter().collect()),
            fallback: Decision::Later,
        }
    }

    /// Answers the calls of the tool `name` from `decisions` first.
    pub fn with_tool(
        self,
        name: impl Into<String>,
        decisions: impl IntoIterator<Item = Decision>,
    ) -> Self {
        if let Ok(mut map) = self.by_tool.lock() {
            map.entry(name.into()).or_default().extend(decisions);
        }
        self
    }

    /// What every ask gets once the lists are spent. Default: [`Decision::Later`].
    pub fn with_fallback(mut self, fallback: Decision) -> Self {
        self.fallback = fallback;
        self
    }

    /// The next decision for a call of `tool`.
    fn next(&self, tool: &str) -> Decision {
        // A poisoned lock (a panic while it was held) still holds a usable
        // queue: take it.
        let own = {
            let mut map = self.by_tool.lock().unwrap_or_else(|e| e.into_inner());
            map.get_mut(tool).and_then(VecDeque::pop_front)
        };
        own.or_else(|| {
            self.shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front()
        })
        .unwrap_or_else(|| self.fallback.clone())
    }
}

impl Approver for ScriptedApprover {
    fn decide<'a>(&'a self, call: &'a PendingCall) -> BoxFuture<'a, Decision> {
        let decision = self.next(&call.call.name);
        Box::pin(std::future::ready(decision))
    }
}

/// One ask sent through a [`ChannelApprover`]: the call, and where its
/// decision goes.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The call waiting.
    pub call: PendingCall,
    /// Send the decision here. Dropping it unanswered counts as
    /// [`Decision::Later`].
    pub reply: tokio::sync::oneshot::Sender<Decision>,
}

/// An approver that hands each pending call to another task (a UI) over a
/// channel and waits for its answer. A closed channel, or a request dropped
/// unanswered, is [`Decision::Later`].
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    requests: tokio::sync::mpsc::Sender<ApprovalRequest>,
}

impl ChannelApprover {
    /// An approver and the receiving end its requests arrive on (`buffer`
    /// requests may wait unread; at least 1).
    pub fn new(buffer: usize) -> (Self, tokio::sync::mpsc::Receiver<ApprovalRequest>) {
        let (requests, receiver) = tokio::sync::mpsc::channel(buffer.max(1));
        (ChannelApprover { requests }, receiver)
    }
}

impl Approver for ChannelApprover {
    fn decide<'a>(&'a self, call: &'a PendingCall) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let request = ApprovalRequest {
                call: call.clone(),
                reply,
            };
            if self.requests.send(request).await.is_err() {
                return Decision::Later;
            }
            answer.await.unwrap_or(Decision::Later)
        })
    }
}

/// Decisions given up front (a resume's), in order, then another approver.
pub(crate) struct Preset<'a> {
    decisions: Mutex<VecDeque<Decision>>,
    then: Option<&'a dyn Approver>,
}

impl<'a> Preset<'a> {
    pub(crate) fn new(decisions: Vec<Decision>, then: Option<&'a dyn Approver>) -> Self {
        Preset {
            decisions: Mutex::new(decisions.into()),
            then,
        }
    }
}

impl Approver for Preset<'_> {
    fn decide<'a>(&'a self, call: &'a PendingCall) -> BoxFuture<'a, Decision> {
        let given = self
            .decisions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        match (given, self.then) {
            (Some(decision), _) => Box::pin(std::future::ready(decision)),
            (None, Some(then)) => then.decide(call),
            (None, None) => Box::pin(std::future::ready(Decision::Later)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::ToolCall;

    fn pending(tool: &str) -> PendingCall {
        PendingCall::new(
            ToolCall {
                id: "c0".into(),
                name: tool.into(),
                arguments: "{}".into(),
            },
            0,
            1,
        )
    }

    #[tokio::test]
    async fn a_table_answers_per_tool_then_shared_then_the_fallback() {
        let table = ScriptedApprover::new([Decision::reject("no")])
            .with_tool("write", [Decision::approve()])
            .with_fallback(Decision::terminate());
        assert_eq!(table.decide(&pending("write")).await, Decision::Approve);
        assert_eq!(
            table.decide(&pending("write")).await,
            Decision::reject("no")
        );
        assert_eq!(table.decide(&pending("read")).await, Decision::Terminate);
    }

    #[tokio::test]
    async fn a_channel_approver_waits_for_the_answer_and_reads_a_dropped_one_as_later() {
        let (approver, mut requests) = ChannelApprover::new(1);
        let ui = tokio::spawn(async move {
            let first = requests.recv().await.unwrap();
            assert_eq!(first.call.call.name, "write");
            first.reply.send(Decision::approve()).unwrap();
            drop(requests.recv().await.unwrap());
        });
        assert_eq!(approver.decide(&pending("write")).await, Decision::Approve);
        assert_eq!(approver.decide(&pending("write")).await, Decision::Later);
        ui.await.unwrap();
        assert_eq!(approver.decide(&pending("write")).await, Decision::Later);
    }
}
