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
use crate::budget::Budget;
use crate::conversation::Conversation;
use crate::dialogue::{Dialogue, DialogueAction, DialogueConfig, DialogueInput, DialogueReport};
use crate::driver::{Approvals, drive_boxed};
use crate::error::ErrorCode;
use crate::machine::Machine;
use crate::report::{RunReport, ToolCallRecord};
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

impl<T> Agent<T> {
    /// Holds a conversation with `user` under `config`: the user speaks
    /// first (`first_message`, or the simulator's first message), then each
    /// agent turn — today's loop, ending in a text reply — and the user's
    /// answer alternate until the user writes the stop marker, the turn
    /// limit is reached or something fails (see [`Dialogue`] for the
    /// decisions). The agent's budgets ([`with_budget`](Self::with_budget))
    /// count over the whole conversation, but `max_turns`, per agent turn.
    /// Approval asks go to the agent's approver;
    /// a `later` ends the conversation with `approval_pending` (a
    /// conversation does not pause).
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
        let now = || tokio::time::Instant::now().into_std();
        let mut dialogue = Dialogue::new(
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
        loop {
            let Some(action) = dialogue.poll(now()) else {
                // The dialogue waits only on what it handed out, which is
                // awaited below before the next poll: a driver bug.
                tracing::error!("the dialogue waits with nothing handed out");
                break;
            };
            let deadline = dialogue.deadline();
            match action {
                DialogueAction::Done => break,
                DialogueAction::AskUser => {
                    let shown = dialogue.exchanges_for_user();
                    let asked = user.next(&shown);
                    let input = match bounded(deadline, asked).await {
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
                DialogueAction::AgentTurn {
                    conversation,
                    budget,
                } => {
                    let (report, conversation) = self.turn(conversation, budget, true).await;
                    let event = ConversationEvent::Agent {
                        turn: dialogue.user_turns(),
                        tool_calls: report.tool_calls.clone(),
                        reply: report
                            .outcome
                            .value()
                            .and_then(|v| v.as_str())
                            .map(str::to_string),
                        report: Box::new(report.clone()),
                    };
                    observer(&event);
                    dialogue.handle(
                        DialogueInput::AgentDone {
                            report: Box::new(report),
                            conversation,
                        },
                        now(),
                    );
                }
                DialogueAction::FinalAnswer {
                    conversation,
                    budget,
                } => {
                    let (report, conversation) = self.turn(conversation, budget, false).await;
                    dialogue.handle(
                        DialogueInput::AgentDone {
                            report: Box::new(report),
                            conversation,
                        },
                        now(),
                    );
                }
            }
        }
        let conversation = dialogue.conversation().cloned().unwrap_or_default();
        let run = ConversationRun {
            report: dialogue.into_report(),
            conversation,
        };
        observer(&ConversationEvent::Finished(Box::new(run.clone())));
        run
    }

    /// One agent run on `conversation` under `budget`: a reply turn, or
    /// (`reply` false) the structured answer's run.
    async fn turn(
        &self,
        conversation: Conversation,
        budget: Budget,
        reply: bool,
    ) -> (RunReport, Conversation) {
        let mut config = self.machine_config();
        config.budget = budget;
        let tools = self.tools.specs_for(config.plan.target);
        let now = tokio::time::Instant::now().into_std();
        let made = match reply {
            true => Machine::reply_or_back(config, self.contract.clone(), tools, conversation, now),
            false => Machine::new_or_back(config, self.contract.clone(), tools, conversation, now),
        };
        let machine = match made {
            Ok(m) => match &self.approval {
                Some(a) => {
                    let check: Arc<dyn crate::approval::ArgumentCheck> = self.tools.clone();
                    m.with_approval(a.policy.clone(), check)
                }
                None => m,
            },
            // Checked in `Agent::new`; kept as data rather than a panic.
            Err((e, conversation)) => {
                tracing::error!("schema compile failed: {e}");
                return (RunReport::failed(ErrorCode::SchemaMismatch), conversation);
            }
        };
        let approvals = self.approver().map(|approver| Approvals {
            approver,
            can_pause: false,
        });
        let span = crate::telemetry::agent_span(self.backend.name(), self.backend.model());
        let driven = drive_boxed(
            Box::new(machine),
            self.backend.as_ref(),
            &self.tools,
            None,
            approvals,
        );
        let (report, conversation) = tracing::Instrument::instrument(driven, span.clone())
            .await
            .into_finished();
        crate::telemetry::record_run(&span, &report);
        (report, conversation)
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
