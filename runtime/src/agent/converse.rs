//! [`Agent::converse`]: the driver of a conversation. Performs what the
//! pure [`Dialogue`] decides — asks the [`UserSimulator`], runs each agent
//! turn as a reply-mode [`Machine`] (tools, budgets, approvals as in any
//! run) — and tells an observer each turn as it happens.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use serde_json::{json, Value};
//! use tribunal_runtime::{ScriptTurn, ScriptedBackend};
//! use tribunal_runtime::{
//!     Agent, DialogueConfig, DialogueEnd, OutputSchema, ScriptLine, ScriptedUser, ToolBox, tool_fn,
//! };
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! // The world of this conversation: a state value its typed tools share.
//! let refunded = Arc::new(Mutex::new(Vec::<String>::new()));
//! let world = refunded.clone();
//! let mut tools = ToolBox::new();
//! tools.add(Arc::new(tool_fn("refund", "Refunds an order.", move |args: Value| {
//!     let world = world.clone();
//!     async move {
//!         let id = args["order"].as_str().unwrap_or_default().to_string();
//!         world.lock().map_err(|_| "poisoned")?.push(id);
//!         Ok::<_, &str>("refunded")
//!     }
//! })));
//! // The agent's model, scripted: a question, then the refund and a reply.
//! let script: Vec<ScriptTurn> = serde_json::from_value(json!([
//!     {"text": "Which order?"},
//!     {"tool_calls": [{"name": "refund", "arguments": {"order": "A1"}}]},
//!     {"text": "Order A1 is refunded."}
//! ])).unwrap();
//! let schema = OutputSchema::new("answer", json!({"type": "object"})).unwrap();
//! let agent = Agent::new(Arc::new(ScriptedBackend::from_script(&script)), Arc::new(schema))
//!     .unwrap()
//!     .with_tools(tools);
//! // The user, scripted: a line keyed on what the agent asks, then the stop.
//! let user = ScriptedUser::new(
//!     vec![ScriptLine { when: Some("which order".into()), say: "A1".into() }],
//!     "###STOP###",
//! );
//! let run = agent
//!     .converse(&user, DialogueConfig::default(), Some("I want a refund.".into()))
//!     .await;
//! assert_eq!(run.report.end, DialogueEnd::UserStopped);
//! assert_eq!(run.report.exchanges.len(), 2);
//! assert_eq!(*refunded.lock().unwrap(), ["A1"]);
//! # }
//! ```

use super::Agent;
use crate::approval::Decision;
use crate::approver::Preset;
use crate::budget::Budget;
use crate::conversation::Conversation;
use crate::dialogue::{
    Dialogue, DialogueAction, DialogueConfig, DialogueInput, DialogueReport, DialogueSnapshot,
};
use crate::driver::{Approvals, Driven, drive_boxed};
use crate::error::ErrorCode;
use crate::machine::Machine;
use crate::report::{RunReport, ToolCallRecord};
use crate::snapshot::{RunSnapshot, SnapshotError};
use crate::user::UserSimulator;
use std::sync::Arc;

/// A finished conversation: its record and the agent's whole conversation
/// (every message of every turn, tool calls and results included).
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationRun {
    /// The record: how it ended, the exchanges, each agent turn's report,
    /// the agent's and the user's tokens apart.
    pub report: DialogueReport,
    /// The agent's conversation.
    pub conversation: Conversation,
}

/// What happens in a conversation, turn by turn, as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum ConversationEvent {
    /// The user said something (`turn` counts user messages from 1).
    User {
        /// The user message's number.
        turn: u32,
        /// What the user said.
        text: String,
    },
    /// An agent turn ended: its tool calls and its reply (`None` when the
    /// turn failed; its report says why).
    Agent {
        /// The number of the user message it answers.
        turn: u32,
        /// The turn's tool calls.
        tool_calls: Vec<ToolCallRecord>,
        /// The reply.
        reply: Option<String>,
        /// The turn's report.
        report: Box<RunReport>,
    },
    /// The conversation is over.
    Finished(Box<ConversationRun>),
}

/// How a pausable conversation ([`Agent::start_conversation`],
/// [`Agent::resume_conversation`]) ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ConversationEnd {
    /// The conversation is over.
    Finished(Box<ConversationRun>),
    /// An approver said [`Decision::Later`] inside an agent turn: the
    /// conversation, paused ([`DialogueSnapshot`]).
    Paused(Box<DialogueSnapshot>),
}

impl ConversationEnd {
    /// The finished conversation, if it finished.
    pub fn finished(self) -> Option<ConversationRun> {
        match self {
            ConversationEnd::Finished(run) => Some(*run),
            ConversationEnd::Paused(_) => None,
        }
    }

    /// The snapshot, if it paused.
    pub fn paused(self) -> Option<DialogueSnapshot> {
        match self {
            ConversationEnd::Paused(snapshot) => Some(*snapshot),
            ConversationEnd::Finished(_) => None,
        }
    }
}

/// How one agent run of a conversation ended.
enum TurnEnd {
    Done(Box<RunReport>, Conversation),
    Paused(Box<RunSnapshot>),
}

fn now() -> std::time::Instant {
    tokio::time::Instant::now().into_std()
}

impl<T> Agent<T> {
    /// Holds a conversation with `user` under `config`: the user speaks
    /// first (`first_message`, or the simulator's first message), then each
    /// agent turn — today's loop, ending in a text reply — and the user's
    /// answer alternate until the user writes the stop marker, the turn
    /// limit is reached or something fails (see [`Dialogue`] for the
    /// decisions). The agent's budgets ([`with_budget`](Self::with_budget))
    /// count over the whole conversation, but `max_turns`, per agent turn.
    /// Approval asks go to the agent's approver;
    /// a `later` ends the conversation with `approval_pending` (this
    /// conversation does not pause; [`start_conversation`](Self::start_conversation) does).
    pub async fn converse(
        &self,
        user: &dyn UserSimulator,
        config: DialogueConfig,
        first_message: Option<String>,
    ) -> ConversationRun {
        self.converse_observed(user, config, first_message, &mut |_| {})
            .await
    }

    /// [`converse`](Self::converse), telling `observer` each turn as it
    /// ends ([`ConversationEvent`]); the last event is
    /// [`ConversationEvent::Finished`].
    pub async fn converse_observed(
        &self,
        user: &dyn UserSimulator,
        config: DialogueConfig,
        first_message: Option<String>,
        observer: &mut (dyn FnMut(&ConversationEvent) + Send),
    ) -> ConversationRun {
        let dialogue = self.open(config, first_message, observer);
        let approvals = self.approver().map(|approver| Approvals {
            approver,
            can_pause: false,
        });
        match self.hold(dialogue, user, None, approvals, observer).await {
            ConversationEnd::Finished(run) => *run,
            // Only a driver given `can_pause` pauses.
            ConversationEnd::Paused(_) => ConversationRun {
                report: Dialogue::new(DialogueConfig::default(), self.budget, None, None, now())
                    .into_report(),
                conversation: Conversation::default(),
            },
        }
    }

    /// [`converse`](Self::converse) that pauses: an approver's
    /// [`Decision::Later`] inside an agent turn pauses the conversation
    /// into a [`DialogueSnapshot`] ([`ConversationEnd::Paused`]), which
    /// [`resume_conversation`](Self::resume_conversation) continues. Without
    /// an approver ([`with_approval`](Self::with_approval) with a policy
    /// only) every ask pauses.
    pub async fn start_conversation(
        &self,
        user: &dyn UserSimulator,
        config: DialogueConfig,
        first_message: Option<String>,
    ) -> ConversationEnd {
        let dialogue = self.open(config, first_message, &mut |_| {});
        let approver = Preset::new(Vec::new(), self.approver());
        let approvals = Approvals {
            approver: &approver,
            can_pause: true,
        };
        self.hold(dialogue, user, None, Some(approvals), &mut |_| {})
            .await
    }

    /// Continues a paused conversation with `user` (the simulator it paused
    /// with: see [`DialogueSnapshot`]): `decisions` answer the asks that
    /// follow, in order — first the paused turn's pending calls, then any
    /// later ask of the conversation; once they run out, the agent's
    /// approver answers (without one, it pauses again at the next ask). The
    /// conversation's budgets go on from what was spent before the pause.
    /// The agent must have the configuration it paused with (tools,
    /// schemas, budgets): else [`SnapshotError::Mismatch`].
    pub async fn resume_conversation(
        &self,
        user: &dyn UserSimulator,
        snapshot: DialogueSnapshot,
        decisions: Vec<Decision>,
    ) -> Result<ConversationEnd, SnapshotError> {
        let at = now();
        let (dialogue, turn) = Dialogue::resume(snapshot, self.budget, at);
        let mut config = self.machine_config();
        config.budget = dialogue.turn_budget();
        let tools = self.tools.specs_for(config.plan.target);
        let (policy, check) = self.approval_parts();
        let resume = match dialogue.in_reply_turn() {
            true => Machine::resume_reply,
            false => Machine::resume_any,
        };
        let machine = resume(
            config,
            self.contract.clone(),
            tools,
            turn,
            (policy, check),
            at,
        )?;
        let approver = Preset::new(decisions, self.approver());
        let approvals = Approvals {
            approver: &approver,
            can_pause: true,
        };
        Ok(self
            .hold(
                dialogue,
                user,
                Some(Box::new(machine)),
                Some(approvals),
                &mut |_| {},
            )
            .await)
    }

    /// A dialogue started now, its first user message told to `observer`.
    fn open(
        &self,
        config: DialogueConfig,
        first_message: Option<String>,
        observer: &mut (dyn FnMut(&ConversationEvent) + Send),
    ) -> Dialogue {
        let dialogue = Dialogue::new(
            config,
            self.budget,
            self.system.clone(),
            first_message,
            now(),
        );
        if let Some(first) = dialogue.exchanges().first() {
            observer(&ConversationEvent::User {
                turn: 1,
                text: first.user.clone(),
            });
        }
        dialogue
    }

    /// Performs what `dialogue` decides until it is done (or, with
    /// `approvals` that can pause, until a turn pauses), `resumed` being
    /// the agent run it waits for, when it waits for one.
    async fn hold(
        &self,
        mut dialogue: Dialogue,
        user: &dyn UserSimulator,
        mut resumed: Option<Box<Machine>>,
        approvals: Option<Approvals<'_>>,
        observer: &mut (dyn FnMut(&ConversationEvent) + Send),
    ) -> ConversationEnd {
        loop {
            let (machine, reply) = match resumed.take() {
                Some(machine) => (machine, dialogue.in_reply_turn()),
                None => {
                    let Some(action) = dialogue.poll(now()) else {
                        // The dialogue waits only on what it handed out,
                        // which is awaited below before the next poll: a
                        // driver bug.
                        tracing::error!("the dialogue waits with nothing handed out");
                        break;
                    };
                    let (conversation, budget, reply) = match action {
                        DialogueAction::Done => break,
                        DialogueAction::AskUser => {
                            self.ask(&mut dialogue, user, observer).await;
                            continue;
                        }
                        DialogueAction::AgentTurn {
                            conversation,
                            budget,
                        } => (conversation, budget, true),
                        DialogueAction::FinalAnswer {
                            conversation,
                            budget,
                        } => (conversation, budget, false),
                    };
                    match self.turn_machine(conversation, budget, reply) {
                        Ok(machine) => (machine, reply),
                        Err(failed) => {
                            self.turn_done(&mut dialogue, failed, reply, observer);
                            continue;
                        }
                    }
                }
            };
            match self.drive_turn(machine, approvals).await {
                TurnEnd::Paused(turn) => match dialogue.pause(*turn, now()) {
                    Ok(snapshot) => return ConversationEnd::Paused(Box::new(snapshot)),
                    Err((back, turn)) => {
                        // Only an agent run that is out pauses: a driver bug.
                        tracing::error!("a turn paused while the dialogue had none out");
                        dialogue = back;
                        let done = TurnEnd::Done(
                            Box::new(RunReport::failed(ErrorCode::InternalError)),
                            turn.into_conversation(),
                        );
                        self.turn_done(&mut dialogue, done, reply, observer);
                    }
                },
                done => self.turn_done(&mut dialogue, done, reply, observer),
            }
        }
        let conversation = dialogue.conversation().cloned().unwrap_or_default();
        let run = ConversationRun {
            report: dialogue.into_report(),
            conversation,
        };
        observer(&ConversationEvent::Finished(Box::new(run.clone())));
        ConversationEnd::Finished(Box::new(run))
    }

    /// Asks `user` for its next message and hands it to `dialogue`.
    async fn ask(
        &self,
        dialogue: &mut Dialogue,
        user: &dyn UserSimulator,
        observer: &mut (dyn FnMut(&ConversationEvent) + Send),
    ) {
        let shown = dialogue.exchanges_for_user();
        let asked = user.next(&shown);
        let input = match bounded(dialogue.deadline(), asked).await {
            None => DialogueInput::DeadlineExceeded,
            Some(Ok(turn)) => DialogueInput::UserSaid {
                text: turn.text,
                usage: turn.usage,
            },
            Some(Err(e)) => {
                tracing::warn!(kind = ?e.kind, "the user simulator failed");
                DialogueInput::UserFailed { usage: *e.spent }
            }
        };
        let before = dialogue.exchanges().len();
        dialogue.handle(input, now());
        if dialogue.exchanges().len() > before
            && let Some(said) = dialogue.exchanges().last()
        {
            observer(&ConversationEvent::User {
                turn: dialogue.user_turns(),
                text: said.user.clone(),
            });
        }
    }

    /// Hands a finished agent run to `dialogue` (a reply turn told to
    /// `observer` first).
    fn turn_done(
        &self,
        dialogue: &mut Dialogue,
        done: TurnEnd,
        reply: bool,
        observer: &mut (dyn FnMut(&ConversationEvent) + Send),
    ) {
        let TurnEnd::Done(report, conversation) = done else {
            return;
        };
        if reply {
            observer(&ConversationEvent::Agent {
                turn: dialogue.user_turns(),
                tool_calls: report.tool_calls.clone(),
                reply: report
                    .outcome
                    .value()
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
                report: report.clone(),
            });
        }
        dialogue.handle(
            DialogueInput::AgentDone {
                report,
                conversation,
            },
            now(),
        );
    }

    /// The machine of one agent run on `conversation` under `budget`: a
    /// reply turn, or (`reply` false) the structured answer's run; or the
    /// failed run.
    fn turn_machine(
        &self,
        conversation: Conversation,
        budget: Budget,
        reply: bool,
    ) -> Result<Box<Machine>, TurnEnd> {
        let mut config = self.machine_config();
        config.budget = budget;
        let tools = self.tools.specs_for(config.plan.target);
        let made = match reply {
            true => {
                Machine::reply_or_back(config, self.contract.clone(), tools, conversation, now())
            }
            false => {
                Machine::new_or_back(config, self.contract.clone(), tools, conversation, now())
            }
        };
        match made {
            Ok(m) => Ok(Box::new(match &self.approval {
                Some(a) => {
                    let check: Arc<dyn crate::approval::ArgumentCheck> = self.tools.clone();
                    m.with_approval(a.policy.clone(), check)
                }
                None => m,
            })),
            // Checked in `Agent::new`; kept as data rather than a panic.
            Err((e, conversation)) => {
                tracing::error!("schema compile failed: {e}");
                Err(TurnEnd::Done(
                    Box::new(RunReport::failed(ErrorCode::SchemaMismatch)),
                    conversation,
                ))
            }
        }
    }

    /// Drives one agent run to its end, or to its pause.
    async fn drive_turn(&self, machine: Box<Machine>, approvals: Option<Approvals<'_>>) -> TurnEnd {
        let span = crate::telemetry::agent_span(self.backend.name(), self.backend.model());
        let driven = drive_boxed(machine, self.backend.as_ref(), &self.tools, None, approvals);
        match tracing::Instrument::instrument(driven, span.clone()).await {
            Driven::Finished(machine) => {
                let (report, conversation) = machine.into_parts();
                crate::telemetry::record_run(&span, &report);
                TurnEnd::Done(Box::new(report), conversation)
            }
            Driven::Paused(snapshot) => TurnEnd::Paused(snapshot),
        }
    }
}

/// Runs `fut` until `deadline`; `None` if the deadline came first.
async fn bounded<F: std::future::Future>(
    deadline: Option<std::time::Instant>,
    fut: F,
) -> Option<F::Output> {
    match deadline {
        Some(d) => tokio::time::timeout_at(d.into(), fut).await.ok(),
        None => Some(fut.await),
    }
}
