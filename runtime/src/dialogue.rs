//! A conversation between an agent and a (simulated) user as a pure state
//! machine: no I/O, no clock reads, no `async`. It decides the turn order,
//! when the conversation ends, and what budget each agent turn gets; the
//! driver (`Agent::converse`) asks the user simulator and runs each agent
//! turn (a [`Machine`](crate::machine::Machine) of its own, in reply mode).
//!
//! ```text
//! User(Due) ──AskUser──▶ User(Sent) ──text──┬─ holds the stop marker ─▶ Done(UserStopped)
//!    ▲                                      └─▶ Agent(Due) ──AgentTurn──▶ Agent(Sent) ──reply──┐
//!    │                                                                                        │
//!    └──────────────────────── fewer than `max_user_turns` messages sent ◀────────────────────┤
//!                                                               otherwise ─▶ Done(TurnLimit) ─┘
//! ```
//!
//! With a first message ([`Dialogue::new`]) the dialogue starts at the
//! agent's turn. With [`DialogueConfig::final_answer`], a conversation that
//! ended without an error gets one more agent run, for the structured answer
//! of the agent's schema ([`DialogueAction::FinalAnswer`]).
//!
//! **Budgets.** `max_tool_calls`, `max_tokens`, `max_cost` and the deadline
//! count over the whole conversation: each agent turn gets what is left of
//! them (a turn that spends it all hits the budget as a single run would:
//! `on_budget` decides). `max_turns` counts model requests per agent turn.
//! The user's turns are bounded by [`DialogueConfig::max_user_turns`]; the
//! simulator's tokens are counted apart ([`DialogueReport::user_usage`]),
//! not against the agent's budget but against its own
//! ([`DialogueConfig::max_user_tokens`]).
//!
//! **The stop marker** is the user's alone: only a user message holding it
//! ends the conversation. Where an agent reply holds it, the user simulator
//! sees it replaced by [`MARKER_WITHHELD`] ([`Dialogue::exchanges_for_user`]),
//! so an agent cannot end the conversation by making the user echo it.

mod pause;
pub use pause::{DIALOGUE_SNAPSHOT_VERSION, DialogueSnapshot};

use crate::budget::Budget;
use crate::conversation::{Conversation, Usage};
use crate::cost::ModelPrice;
use crate::error::ErrorCode;
use crate::report::{RunOutcome, RunReport, ToolCallRecord};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// What an agent's reply shows the user simulator in place of the stop marker.
pub const MARKER_WITHHELD: &str = "[the stop marker is the user's to write]";

/// The longest user message taken, in bytes: 16 KiB. A longer one ends the
/// conversation with [`ErrorCode::UserSimulatorFailed`].
pub const MAX_USER_MESSAGE_BYTES: usize = 16 * 1024;

/// The default stop marker (tau-bench's).
pub const DEFAULT_STOP_MARKER: &str = "###STOP###";

/// The settings of one conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct DialogueConfig {
    /// The most user messages the agent gets (each starts an agent turn).
    /// When the agent has replied to that many, the conversation ends with
    /// [`DialogueEnd::TurnLimit`]. Default: 10.
    pub max_user_turns: u32,
    /// The text by which the user ends the conversation. Default:
    /// [`DEFAULT_STOP_MARKER`].
    pub stop_marker: String,
    /// Whether a conversation that ended without an error gets one more
    /// agent run for a structured answer. Default: no.
    pub final_answer: bool,
    /// The user simulator's budget: the most tokens (input plus output)
    /// its messages may spend over the conversation. Once spent, the
    /// conversation ends with [`DialogueEnd::UserBudgetSpent`] after the
    /// agent's reply (the message that overspends it is still sent).
    /// Default: unlimited.
    pub max_user_tokens: Option<u64>,
    /// The price of the user simulator's tokens, when its spend counts
    /// against the agent's cost budget (`max_cost`, over the whole
    /// conversation): what the agent's turns have left is the budget less
    /// both spends, and a conversation whose spend is over the budget
    /// before an agent turn ends with [`ErrorCode::MaxCostExceeded`].
    /// Default: `None` — the user's spend is counted apart only.
    pub user_price: Option<ModelPrice>,
}

impl Default for DialogueConfig {
    fn default() -> Self {
        DialogueConfig {
            max_user_turns: 10,
            stop_marker: DEFAULT_STOP_MARKER.to_string(),
            final_answer: false,
            max_user_tokens: None,
            user_price: None,
        }
    }
}

/// One exchange: a user message and the agent's reply to it (`None` while
/// the agent has not replied, or when its turn failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// What the user said.
    pub user: String,
    /// What the agent replied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// How a conversation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum DialogueEnd {
    /// The user wrote the stop marker: the simulator says its goal is met
    /// (or cannot be). Reported, never trusted alone.
    UserStopped,
    /// The agent replied to `max_user_turns` messages.
    TurnLimit,
    /// The user simulator spent its token budget
    /// ([`DialogueConfig::max_user_tokens`]).
    UserBudgetSpent,
    /// An agent turn failed, the user simulator failed, or the deadline
    /// passed.
    Failed {
        /// Why.
        code: ErrorCode,
    },
}

impl DialogueEnd {
    /// The stable name: `user_stopped`, `turn_limit`, `user_budget_spent`
    /// or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            DialogueEnd::UserStopped => "user_stopped",
            DialogueEnd::TurnLimit => "turn_limit",
            DialogueEnd::UserBudgetSpent => "user_budget_spent",
            DialogueEnd::Failed { .. } => "failed",
        }
    }
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogueAction {
    /// Ask the user simulator for its next message, showing it
    /// [`Dialogue::exchanges_for_user`].
    AskUser,
    /// Run one agent turn in reply mode on `conversation` (which ends with
    /// the user's message) under `budget`, and hand back its run.
    AgentTurn {
        /// The conversation so far.
        conversation: Conversation,
        /// What is left of the conversation's budgets.
        budget: Budget,
    },
    /// Run the agent once more for its structured answer (the conversation
    /// ends with the request for it).
    FinalAnswer {
        /// The conversation so far, with the request for the answer.
        conversation: Conversation,
        /// What is left of the conversation's budgets.
        budget: Budget,
    },
    /// The conversation is over; call [`Dialogue::into_report`].
    Done,
}

/// What happened, as fed back to the dialogue.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogueInput {
    /// The user simulator wrote a message.
    UserSaid {
        /// The message.
        text: String,
        /// The simulator's tokens.
        usage: Usage,
    },
    /// The user simulator failed (its backend, after retries).
    UserFailed {
        /// Tokens it reported before it failed.
        usage: Usage,
    },
    /// The agent turn (or the final-answer run) finished.
    AgentDone {
        /// Its report.
        report: Box<RunReport>,
        /// The conversation it ended with.
        conversation: Conversation,
    },
    /// The conversation's deadline passed while waiting.
    DeadlineExceeded,
}

/// The record of one conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DialogueReport {
    /// How it ended.
    pub end: DialogueEnd,
    /// The exchanges, in order (the user's stopping message is the last
    /// `user`, with the marker and what follows it cut).
    pub exchanges: Vec<Exchange>,
    /// Each agent turn's report, in order.
    pub agent_turns: Vec<RunReport>,
    /// The structured answer's run, when one was asked for and made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_answer: Option<RunReport>,
    /// The agent's tokens, over every turn.
    pub agent_usage: Usage,
    /// The user simulator's tokens.
    pub user_usage: Usage,
    /// Wall time of the conversation, in milliseconds.
    pub wall_ms: f64,
}

impl DialogueReport {
    /// Every tool call of the conversation, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallRecord> {
        self.agent_turns
            .iter()
            .chain(self.final_answer.iter())
            .flat_map(|r| r.tool_calls.iter())
    }

    /// The conversation as one run: an error outcome when it failed (or its
    /// final answer did); else the final answer, or else the agent's replies
    /// joined by blank lines, as a JSON string. Usage, tool calls and model
    /// turns are the sums of the agent's turns; the user's are not in it.
    pub fn as_run_report(&self) -> RunReport {
        let outcome = match (self.end, &self.final_answer) {
            (DialogueEnd::Failed { code }, _) => RunOutcome::Error { code },
            (_, Some(run)) => run.outcome.clone(),
            (_, None) => RunOutcome::Ok {
                value: serde_json::Value::String(
                    self.exchanges
                        .iter()
                        .filter_map(|e| e.agent.as_deref())
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                ),
            },
        };
        let mut report = RunReport::failed(ErrorCode::InternalError);
        report.outcome = outcome;
        report.usage = self.agent_usage;
        report.tool_calls = self.tool_calls().cloned().collect();
        report.turns = self
            .agent_turns
            .iter()
            .chain(self.final_answer.iter())
            .map(|r| r.turns)
            .sum();
        report.wall_ms = self.wall_ms;
        report.repair_used = self.agent_turns.iter().any(|r| r.repair_used);
        report.backend_failure = self
            .agent_turns
            .iter()
            .chain(self.final_answer.iter())
            .find_map(|r| r.backend_failure.clone());
        report
    }
}

/// The message that asks for the structured answer after the conversation.
pub const FINAL_ANSWER_REQUEST: &str =
    "The conversation with the user is over. Give your final answer now.";

/// Whether the dialogue has handed out its current step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Due,
    Sent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    User(Step),
    Agent(Step),
    Final(Step),
    Done(DialogueEnd),
}

/// The decisions of one conversation.
#[derive(Debug)]
pub struct Dialogue {
    config: DialogueConfig,
    /// The agent's budgets over the whole conversation.
    budget: Budget,
    /// The agent's conversation, while no agent turn holds it.
    conversation: Option<Conversation>,
    system: Option<String>,
    exchanges: Vec<Exchange>,
    agent_turns: Vec<RunReport>,
    final_answer: Option<RunReport>,
    /// How the conversation ended, while its final answer's run is made.
    final_end: Option<DialogueEnd>,
    agent_usage: Usage,
    user_usage: Usage,
    tool_calls: u32,
    started: Instant,
    deadline: Option<Instant>,
    /// The deadline of the agent run handed out last (what its budget had).
    turn_deadline: Option<Duration>,
    ended_at: Option<Instant>,
    state: State,
}

impl Dialogue {
    /// A conversation started at `now` under the agent's `budget` (counted
    /// over the whole conversation), the agent's system prompt being
    /// `system`. With `first_message` the user has spoken: the agent's turn
    /// comes first; without, the user simulator writes the first message.
    pub fn new(
        config: DialogueConfig,
        budget: Budget,
        system: Option<String>,
        first_message: Option<String>,
        now: Instant,
    ) -> Dialogue {
        let deadline = budget.deadline.map(|d| now + d);
        let mut dialogue = Dialogue {
            config,
            budget,
            conversation: None,
            system,
            exchanges: Vec::new(),
            agent_turns: Vec::new(),
            final_answer: None,
            final_end: None,
            agent_usage: Usage::default(),
            user_usage: Usage::default(),
            tool_calls: 0,
            started: now,
            deadline,
            turn_deadline: None,
            ended_at: None,
            state: State::User(Step::Due),
        };
        if let Some(text) = first_message {
            dialogue.state = State::User(Step::Sent);
            dialogue.on_user(text);
        }
        dialogue
    }

    /// The conversation's deadline, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The exchanges so far.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// The exchanges as the user simulator sees them: each agent reply's
    /// stop markers replaced by [`MARKER_WITHHELD`].
    pub fn exchanges_for_user(&self) -> Vec<Exchange> {
        let marker = self.config.stop_marker.as_str();
        self.exchanges
            .iter()
            .map(|e| Exchange {
                user: e.user.clone(),
                agent: e.agent.as_ref().map(|a| match marker.is_empty() {
                    true => a.clone(),
                    false => a.replace(marker, MARKER_WITHHELD),
                }),
            })
            .collect()
    }

    /// The user's messages so far (the number of agent turns started).
    pub fn user_turns(&self) -> u32 {
        u32::try_from(self.exchanges.len()).unwrap_or(u32::MAX)
    }

    /// Whether the conversation is over.
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// What to do next at `now`. `None` while waiting for an input.
    pub fn poll(&mut self, now: Instant) -> Option<DialogueAction> {
        match self.state {
            State::Done(_) => return Some(DialogueAction::Done),
            State::User(Step::Sent) | State::Agent(Step::Sent) | State::Final(Step::Sent) => {
                return None;
            }
            _ => {}
        }
        if self.deadline.is_some_and(|d| now >= d) {
            self.end(DialogueEnd::Failed {
                code: ErrorCode::DeadlineExceeded,
            });
            self.ended_at = Some(now);
            return Some(DialogueAction::Done);
        }
        match self.state {
            State::User(Step::Due) => {
                self.state = State::User(Step::Sent);
                Some(DialogueAction::AskUser)
            }
            State::Agent(Step::Due) if self.over_cost_budget() => {
                self.end(DialogueEnd::Failed {
                    code: ErrorCode::MaxCostExceeded,
                });
                self.ended_at = Some(now);
                Some(DialogueAction::Done)
            }
            State::Agent(Step::Due) => {
                self.state = State::Agent(Step::Sent);
                let conversation = self.conversation.take().unwrap_or_default();
                Some(DialogueAction::AgentTurn {
                    conversation,
                    budget: self.budget_left(now),
                })
            }
            State::Final(Step::Due) => {
                self.state = State::Final(Step::Sent);
                let mut conversation = self.conversation.take().unwrap_or_default();
                conversation.push_user(FINAL_ANSWER_REQUEST);
                Some(DialogueAction::FinalAnswer {
                    conversation,
                    budget: self.budget_left(now),
                })
            }
            _ => None,
        }
    }

    /// Takes what happened at `now`.
    pub fn handle(&mut self, input: DialogueInput, now: Instant) {
        match (self.state, input) {
            (State::Done(_), _) => return,
            (_, DialogueInput::DeadlineExceeded) => {
                self.end(DialogueEnd::Failed {
                    code: ErrorCode::DeadlineExceeded,
                });
            }
            (State::User(Step::Sent), DialogueInput::UserSaid { text, usage }) => {
                self.user_usage.add(usage);
                self.on_user(text);
            }
            (State::User(Step::Sent), DialogueInput::UserFailed { usage }) => {
                self.user_usage.add(usage);
                self.end(DialogueEnd::Failed {
                    code: ErrorCode::UserSimulatorFailed,
                });
            }
            (
                State::Agent(Step::Sent),
                DialogueInput::AgentDone {
                    report,
                    conversation,
                },
            ) => self.on_agent(*report, conversation),
            (
                State::Final(Step::Sent),
                DialogueInput::AgentDone {
                    report,
                    conversation,
                },
            ) => {
                self.spend(&report);
                self.conversation = Some(conversation);
                self.final_answer = Some(*report);
                let end = self.end_before_final();
                self.end(end);
            }
            (_, input) => {
                tracing::error!(
                    input = input_kind(&input),
                    "unexpected input for the dialogue's state"
                );
                self.end(DialogueEnd::Failed {
                    code: ErrorCode::InternalError,
                });
            }
        }
        if self.is_done() && self.ended_at.is_none() {
            self.ended_at = Some(now);
        }
    }

    /// A user message: the end, when it holds the stop marker; else the
    /// agent's turn.
    fn on_user(&mut self, text: String) {
        if text.len() > MAX_USER_MESSAGE_BYTES || text.trim().is_empty() {
            tracing::warn!(
                bytes = text.len(),
                "the user simulator's message is empty or too large"
            );
            self.end(DialogueEnd::Failed {
                code: ErrorCode::UserSimulatorFailed,
            });
            return;
        }
        let marker = self.config.stop_marker.as_str();
        if let Some(at) = (!marker.is_empty()).then(|| text.find(marker)).flatten() {
            let said = text[..at].trim();
            if !said.is_empty() {
                self.exchanges.push(Exchange {
                    user: said.to_string(),
                    agent: None,
                });
            }
            self.stopped(DialogueEnd::UserStopped);
            return;
        }
        let text = text.trim().to_string();
        let conversation = match self.conversation.take() {
            Some(mut c) => {
                c.push_user(text.clone());
                c
            }
            None => Conversation::new(self.system.clone(), text.clone()),
        };
        self.conversation = Some(conversation);
        self.exchanges.push(Exchange {
            user: text,
            agent: None,
        });
        self.state = State::Agent(Step::Due);
    }

    /// An agent turn's run: its reply, then the user's turn or the end.
    fn on_agent(&mut self, report: RunReport, conversation: Conversation) {
        self.spend(&report);
        self.conversation = Some(conversation);
        let outcome = report.outcome.clone();
        self.agent_turns.push(report);
        match outcome {
            RunOutcome::Ok {
                value: serde_json::Value::String(reply),
            } => {
                if let Some(last) = self.exchanges.last_mut() {
                    last.agent = Some(reply);
                }
                if self.user_turns() >= self.config.max_user_turns {
                    self.stopped(DialogueEnd::TurnLimit);
                } else if self.user_budget_spent() {
                    self.stopped(DialogueEnd::UserBudgetSpent);
                } else {
                    self.state = State::User(Step::Due);
                }
            }
            RunOutcome::Ok { .. } => self.end(DialogueEnd::Failed {
                code: ErrorCode::InternalError,
            }),
            RunOutcome::Error { code } => self.end(DialogueEnd::Failed { code }),
        }
    }

    /// The conversation itself is over without an error: the final answer's
    /// run when one is asked for, else the end.
    fn stopped(&mut self, end: DialogueEnd) {
        if self.config.final_answer && self.conversation.is_some() {
            self.final_end = Some(end);
            self.state = State::Final(Step::Due);
        } else {
            self.end(end);
        }
    }

    /// What the user simulator spent, in USD, when it counts against the
    /// agent's cost budget ([`DialogueConfig::user_price`]); else 0.
    fn user_cost(&self) -> f64 {
        self.config
            .user_price
            .map_or(0.0, |price| price.cost(&self.user_usage))
    }

    /// Whether the conversation spent more than its cost budget (the agent's
    /// tokens, and the user's when they count), as a run's machine checks.
    fn over_cost_budget(&self) -> bool {
        self.budget.max_cost.is_some_and(|limit| {
            limit.price.cost(&self.agent_usage) + self.user_cost() > limit.max_usd
        })
    }

    /// Whether the user simulator has spent its token budget.
    fn user_budget_spent(&self) -> bool {
        self.config
            .max_user_tokens
            .is_some_and(|max| self.user_usage.total() >= max)
    }

    /// How the conversation ended before its final answer's run.
    fn end_before_final(&self) -> DialogueEnd {
        self.final_end.unwrap_or(DialogueEnd::TurnLimit)
    }

    fn end(&mut self, end: DialogueEnd) {
        self.state = State::Done(end);
    }

    /// Counts what an agent run spent against the conversation's budgets.
    fn spend(&mut self, report: &RunReport) {
        self.agent_usage.add(report.usage);
        let calls = u32::try_from(report.tool_calls.len()).unwrap_or(u32::MAX);
        self.tool_calls = self.tool_calls.saturating_add(calls);
    }

    /// What is left of the conversation's budgets at `now`, for one agent
    /// run (its deadline kept: a paused run resumes with the same budget).
    fn budget_left(&mut self, now: Instant) -> Budget {
        self.turn_deadline = self.deadline.map(|d| {
            d.saturating_duration_since(now)
                .max(Duration::from_millis(1))
        });
        self.turn_budget()
    }

    /// The budget of the agent run handed out last: what is left of the
    /// conversation's, its deadline as it was handed out.
    pub(crate) fn turn_budget(&self) -> Budget {
        let mut budget = self.budget;
        budget.max_tool_calls = budget
            .max_tool_calls
            .map(|max| max.saturating_sub(self.tool_calls));
        budget.max_tokens = budget
            .max_tokens
            .map(|max| max.saturating_sub(self.agent_usage.total()));
        if let Some(limit) = budget.max_cost.as_mut() {
            limit.max_usd =
                (limit.max_usd - limit.price.cost(&self.agent_usage) - self.user_cost()).max(0.0);
        }
        budget.deadline = self.turn_deadline;
        budget
    }

    /// Whether the agent run out is a reply turn (not the final answer's).
    pub(crate) fn in_reply_turn(&self) -> bool {
        matches!(self.state, State::Agent(_))
    }

    /// The record of the conversation (an unfinished one ends as
    /// [`ErrorCode::InternalError`]: the driver gave up on it).
    pub fn into_report(self) -> DialogueReport {
        let end = match self.state {
            State::Done(end) => end,
            _ => DialogueEnd::Failed {
                code: ErrorCode::InternalError,
            },
        };
        let wall = self
            .ended_at
            .map(|e| e.saturating_duration_since(self.started))
            .unwrap_or(Duration::ZERO);
        DialogueReport {
            end,
            exchanges: self.exchanges,
            agent_turns: self.agent_turns,
            final_answer: self.final_answer,
            agent_usage: self.agent_usage,
            user_usage: self.user_usage,
            wall_ms: wall.as_secs_f64() * 1000.0,
        }
    }

    /// The agent's conversation (every message of every turn), when no
    /// agent turn holds it.
    pub fn conversation(&self) -> Option<&Conversation> {
        self.conversation.as_ref()
    }
}

/// The kind of an input, for logs that must not carry its content.
fn input_kind(input: &DialogueInput) -> &'static str {
    match input {
        DialogueInput::UserSaid { .. } => "user_said",
        DialogueInput::UserFailed { .. } => "user_failed",
        DialogueInput::AgentDone { .. } => "agent_done",
        DialogueInput::DeadlineExceeded => "deadline_exceeded",
    }
}
