//! The agent loop as a pure state machine: no I/O, no clock reads, no `async`.
//!
//! The driver (see `driver.rs`) alternates [`Machine::poll`], which says what
//! to do next, and [`Machine::handle`], which takes what happened. Time comes
//! in as an argument. Every decision of a run — budgets, the single repair,
//! the finalize turn, the outcome — is a transition here.
//!
//! ```text
//! Ready(Agent) ──CallModel──▶ AwaitingModel ──turn with tool calls──▶ ToolsReady ──CallTools──▶ AwaitingTools ─┐
//!      ▲                            │ final answer                                                              │
//!      └────────────────────────────┼──────────────────────────── tool results ◀────────────────────────────────┘
//!                                   ├─ valid ─────────────────▶ Done(Ok)
//!                                   ├─ invalid, repair unused ─▶ Ready(Repair)   (no tools)
//!                                   └─ invalid again ──────────▶ Done(Error(code))
//! ```

use crate::answer::{AnswerPolicy, evaluate_answer, repair_message};
use crate::backend::{BackendError, ModelRequest, OutputFormat, SchemaTarget};
use crate::budget::{Budget, OnBudget};
use crate::contract::AnswerContract;
use crate::conversation::{Conversation, Message, ModelTurn, ToolCall, ToolResult, Usage};
use crate::error::{ErrorCode, SchemaError};
use crate::json::ExtractedFrom;
use crate::report::{BackendFailure, RunOutcome, RunReport, ToolCallRecord};
use crate::tool::{ToolExecution, ToolSpec};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Settings of a machine that are not budgets.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineConfig {
    /// Budgets.
    pub budget: Budget,
    /// How final answers are read.
    pub answer: AnswerPolicy,
    /// Per-request output-token ceiling passed to the backend.
    pub max_output_tokens: Option<u32>,
    /// The backend's schema dialect.
    pub target: SchemaTarget,
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this request to the model.
    CallModel(ModelRequest),
    /// Execute these tool calls (concurrently) and report the results.
    /// Shared with the machine, which pairs the results with the calls.
    CallTools(Arc<[ToolCall]>),
    /// The run is over; call [`Machine::into_report`].
    Done,
}

/// What happened, as fed back to the machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The model answered.
    Turn(ModelTurn),
    /// The backend failed (after its own retries).
    BackendFailed(BackendError),
    /// The tool calls finished, one execution per call, in call order.
    ToolsDone(Vec<ToolExecution>),
    /// The run deadline passed while waiting.
    DeadlineExceeded,
}

/// Why a model request is being made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A normal turn: tools offered.
    Agent,
    /// The one repair turn: tools disabled.
    Repair,
    /// A budget was hit: one tools-disabled request for the final answer.
    Finalize(ErrorCode),
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    Ready(Phase),
    AwaitingModel(Phase),
    ToolsReady(Arc<[ToolCall]>),
    AwaitingTools(Arc<[ToolCall]>),
    Done(RunOutcome),
}

/// The agent loop's decisions for one run.
#[derive(Debug)]
pub struct Machine {
    config: MachineConfig,
    contract: Arc<dyn AnswerContract>,
    output: OutputFormat,
    tools: Arc<[ToolSpec]>,
    conversation: Arc<Conversation>,
    started: Instant,
    deadline: Option<Instant>,
    state: State,
    usage: Usage,
    tool_calls_executed: u32,
    turns: u32,
    repair_used: bool,
    finalized_after: Option<ErrorCode>,
    extracted_from: Option<ExtractedFrom>,
    tool_records: Vec<ToolCallRecord>,
    backend_failure: Option<BackendFailure>,
    ended_at: Option<Instant>,
}

impl Machine {
    /// A machine for one run, started at `now`. Fails only if the contract
    /// cannot produce a wire schema for the configured target.
    pub fn new(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: impl Into<Arc<[ToolSpec]>>,
        conversation: Conversation,
        now: Instant,
    ) -> Result<Self, SchemaError> {
        let output = OutputFormat::JsonSchema {
            name: contract.format_name().to_string(),
            schema: contract.wire_schema(config.target)?,
        };
        let deadline = config.budget.deadline.map(|d| now + d);
        Ok(Machine {
            config,
            contract,
            output,
            tools: tools.into(),
            conversation: Arc::new(conversation),
            started: now,
            deadline,
            state: State::Ready(Phase::Agent),
            usage: Usage::default(),
            tool_calls_executed: 0,
            turns: 0,
            repair_used: false,
            finalized_after: None,
            extracted_from: None,
            tool_records: Vec::new(),
            backend_failure: None,
            ended_at: None,
        })
    }

    /// The run's deadline, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Whether the run is over.
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// What to do next. `None` while waiting for an input.
    pub fn poll(&mut self, now: Instant) -> Option<Action> {
        match std::mem::replace(&mut self.state, State::Done(error(ErrorCode::BackendError))) {
            State::Ready(phase) => {
                if self.past_deadline(now) {
                    return Some(self.finish(error(ErrorCode::DeadlineExceeded), now));
                }
                if phase == Phase::Agent && self.turns >= self.config.budget.max_turns {
                    self.budget_hit(ErrorCode::MaxTurnsExceeded, now);
                    return self.poll(now);
                }
                let tools = if phase == Phase::Agent {
                    self.tools.clone()
                } else {
                    Arc::from(Vec::new())
                };
                let request = ModelRequest {
                    conversation: Arc::clone(&self.conversation),
                    tools,
                    output: self.output.clone(),
                    max_output_tokens: self.config.max_output_tokens,
                };
                tracing::trace!(?phase, turn = self.turns + 1, "request model");
                self.state = State::AwaitingModel(phase);
                Some(Action::CallModel(request))
            }
            State::ToolsReady(calls) => {
                self.state = State::AwaitingTools(Arc::clone(&calls));
                Some(Action::CallTools(calls))
            }
            State::Done(outcome) => {
                self.state = State::Done(outcome);
                Some(Action::Done)
            }
            waiting @ (State::AwaitingModel(_) | State::AwaitingTools(_)) => {
                self.state = waiting;
                None
            }
        }
    }

    /// Takes what happened at `now`.
    pub fn handle(&mut self, input: Input, now: Instant) {
        // Each arm below sets the next state; an ignored input leaves it as is.
        match (self.state.clone(), input) {
            (State::Done(_), _) => {}
            (_, Input::DeadlineExceeded) => {
                self.finish(error(ErrorCode::DeadlineExceeded), now);
            }
            (State::AwaitingModel(_), Input::BackendFailed(e)) => {
                self.backend_failure = Some(BackendFailure::of(&e));
                self.finish(error(ErrorCode::BackendError), now);
            }
            (State::AwaitingModel(phase), Input::Turn(turn)) => self.on_turn(phase, turn, now),
            (State::AwaitingTools(calls), Input::ToolsDone(executions)) => {
                self.on_tools(&calls, executions, now)
            }
            (state, input) => {
                // An input the machine did not ask for: a driver bug. End the run
                // rather than guess.
                tracing::error!(?state, ?input, "unexpected input for state");
                self.finish(error(ErrorCode::BackendError), now);
            }
        }
    }

    fn on_turn(&mut self, phase: Phase, turn: ModelTurn, now: Instant) {
        let ModelTurn {
            text,
            tool_calls,
            usage,
            stop,
            reasoning,
        } = turn;
        self.turns += 1;
        self.usage.add(usage);
        let calls: Arc<[ToolCall]> = tool_calls.into();
        // The text moves into the conversation (an answer can be large); it is
        // read back from there below.
        self.conversation_mut().messages.push(Message::Assistant {
            text,
            tool_calls: calls.to_vec(),
            reasoning,
        });
        if let Some(max) = self.config.budget.max_tokens {
            if self.usage.total() > max {
                self.finish(error(ErrorCode::MaxTokensExceeded), now);
                return;
            }
        }
        if self.past_deadline(now) {
            self.finish(error(ErrorCode::DeadlineExceeded), now);
            return;
        }
        if phase == Phase::Agent && !calls.is_empty() {
            let requested = calls.len() as u32;
            if let Some(max) = self.config.budget.max_tool_calls {
                if self.tool_calls_executed.saturating_add(requested) > max {
                    self.refuse_batch(&calls);
                    self.budget_hit(ErrorCode::MaxToolCallsExceeded, now);
                    return;
                }
            }
            self.state = State::ToolsReady(calls);
            return;
        }
        // A final answer. (Tool calls on a tools-disabled turn are ignored: only
        // the text can be the answer.)
        let text = match self.conversation.messages.last() {
            Some(Message::Assistant { text, .. }) => text.as_str(),
            _ => "",
        };
        match evaluate_answer(
            self.contract.as_ref(),
            self.config.target,
            text,
            stop,
            &self.config.answer,
        ) {
            Ok(accepted) => {
                self.extracted_from = Some(accepted.extracted_from);
                if let Phase::Finalize(code) = phase {
                    self.finalized_after = Some(code);
                }
                self.finish(
                    RunOutcome::Ok {
                        value: accepted.value,
                    },
                    now,
                );
            }
            Err(rejection) if rejection.code == ErrorCode::Refused || self.repair_used => {
                self.finish(error(rejection.code), now);
            }
            Err(rejection) => {
                tracing::trace!(code = %rejection.code, "final answer rejected; one repair");
                self.repair_used = true;
                if let Phase::Finalize(code) = phase {
                    self.finalized_after = Some(code);
                }
                self.conversation_mut()
                    .push_user(repair_message(&rejection));
                self.state = State::Ready(Phase::Repair);
            }
        }
    }

    fn on_tools(&mut self, calls: &[ToolCall], executions: Vec<ToolExecution>, now: Instant) {
        self.tool_calls_executed = self.tool_calls_executed.saturating_add(calls.len() as u32);
        let mut results = Vec::with_capacity(calls.len());
        for (call, execution) in calls.iter().zip(executions) {
            self.tool_records.push(ToolCallRecord {
                name: call.name.clone(),
                arguments: call.arguments.clone(),
                ok: !execution.result.is_error,
                duration_ms: execution.duration.as_secs_f64() * 1000.0,
            });
            results.push(execution.result);
        }
        // A driver that returned fewer executions than calls: every call still
        // needs a result for the provider.
        for call in calls.iter().skip(results.len()) {
            results.push(ToolResult {
                id: call.id.clone(),
                content: "error: the tool produced no result".to_string(),
                is_error: true,
            });
        }
        self.conversation_mut()
            .messages
            .push(Message::ToolResults { results });
        if self.past_deadline(now) {
            self.finish(error(ErrorCode::DeadlineExceeded), now);
            return;
        }
        self.state = State::Ready(Phase::Agent);
    }

    /// Answers a refused batch with error results (providers require a result
    /// for every call); none of the calls runs.
    fn refuse_batch(&mut self, calls: &[ToolCall]) {
        let results = calls
            .iter()
            .map(|c| ToolResult {
                id: c.id.clone(),
                content: "error: not executed: the run's tool-call budget is exhausted".to_string(),
                is_error: true,
            })
            .collect();
        self.conversation_mut()
            .messages
            .push(Message::ToolResults { results });
    }

    /// A budget was hit: end the run, or (policy `finalize`) get ready for the
    /// one tools-disabled final-answer request.
    fn budget_hit(&mut self, code: ErrorCode, now: Instant) {
        match self.config.budget.on_budget {
            OnBudget::Fail => {
                self.finish(error(code), now);
            }
            OnBudget::Finalize => {
                tracing::trace!(%code, "budget hit; asking for the final answer");
                self.state = State::Ready(Phase::Finalize(code));
            }
        }
    }

    fn past_deadline(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }

    fn finish(&mut self, outcome: RunOutcome, now: Instant) -> Action {
        self.ended_at = Some(now);
        self.state = State::Done(outcome);
        Action::Done
    }

    /// The report of a finished run (or of one stopped early: a run that is
    /// not done reports `backend_error`).
    pub fn into_report(self) -> RunReport {
        self.into_parts().0
    }

    /// The report and the final conversation.
    pub fn into_parts(self) -> (RunReport, Conversation) {
        let outcome = match self.state {
            State::Done(outcome) => outcome,
            _ => error(ErrorCode::BackendError),
        };
        let wall = self
            .ended_at
            .map(|e| e.saturating_duration_since(self.started))
            .unwrap_or(Duration::ZERO);
        let report = RunReport {
            outcome,
            repair_used: self.repair_used,
            extracted_from: self.extracted_from,
            usage: self.usage,
            tool_calls: self.tool_records,
            turns: self.turns,
            wall_ms: wall.as_secs_f64() * 1000.0,
            finalized_after: self.finalized_after,
            backend_failure: self.backend_failure,
        };
        let conversation =
            Arc::try_unwrap(self.conversation).unwrap_or_else(|shared| (*shared).clone());
        (report, conversation)
    }

    /// The conversation, to grow it. Copies it first only if a request still
    /// holds it (copy on write).
    fn conversation_mut(&mut self) -> &mut Conversation {
        Arc::make_mut(&mut self.conversation)
    }
}

fn error(code: ErrorCode) -> RunOutcome {
    RunOutcome::Error { code }
}
