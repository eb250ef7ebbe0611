//! The agent loop as a pure state machine: no I/O, no clock reads, no `async`.
//!
//! The driver (see `driver.rs`) alternates [`Machine::poll`], which says what
//! to do next, and [`Machine::handle`], which takes what happened. Time comes
//! in as an argument. Every decision of a run — budgets, the single repair,
//! the finalize turn, the outcome — is a transition here.
//!
//! ```text
//! Model(Agent, Due) ──CallModel──▶ Model(Agent, Sent) ──turn with tool calls──▶ Tools(Due) ──CallTools──▶ Tools(Sent) ─┐
//!      ▲                                 │ final answer                                                                │
//!      └─────────────────────────────────┼────────────────────────────────── tool results ◀────────────────────────────┘
//!                                        ├─ valid ─────────────────▶ Done(Ok)
//!                                        ├─ invalid, repair unused ─▶ Model(Repair, Due)   (no tools)
//!                                        └─ invalid again ──────────▶ Done(Error(code))
//! ```
//!
//! A budget hit under `on_budget = finalize`, or a turn whose calls all
//! repeat earlier ones under `on_repeat = finalize`, goes to
//! `Model(Finalize(code), Due)`: one tools-disabled request for the answer. The phase carries the
//! run's history that later decisions need (a repair phase knows whether a
//! finalize answer led to it), so nothing beside the state steers the loop.
//! An input the machine did not ask for is a driver bug: the run ends with
//! [`ErrorCode::InternalError`].
//!
//! The [`OutputPlan`] decides how requests ask for the answer: under the
//! tool strategy every agent request also offers the answer tool, a call to
//! it is the final answer (its arguments go through the same decode →
//! validate → one repair path, and it never counts as a tool call), and the
//! repair and finalize requests offer only that tool and require a call (a
//! text answer is still read: not every server enforces the requirement).
//! A call that repeats an earlier one of the run (same name, same arguments)
//! is not run again: it gets a short result pointing at the earlier one and
//! still counts toward `max_tool_calls`. Calls of one turn that are the same
//! run once: each gets that one result, and they count once. A turn asking
//! for more calls than `max_tool_calls` has left runs those that fit, in
//! order, and refuses the rest with the reason (checked before any of them
//! runs); then the budget has been hit. When every call of a turn repeats,
//! `on_repeat = finalize` (the default) goes to the finalize turn with
//! [`ErrorCode::ToolCallsRepeated`]: a model in a loop answers from what it
//! found instead of spending its tool budget on repeats.
//!
//! When the plan reads text calls ([`OutputPlan::read_text_calls`], servers
//! other than the hosted APIs), an agent turn that came back with no call but
//! with a call of an offered tool written in its text runs that call
//! (`text_calls.rs`); finalize and repair turns never do. Under
//! `require_tool_first`, `max_idle_turns` prose turns in a row end the run
//! with [`ErrorCode::NoProgress`], or under `on_idle = finalize` go to the
//! finalize turn.
//!
//! A text answer — a run's under `extraction = "text"`, or a conversation's
//! reply ([`Machine::new_reply`]) — takes the same final-answer path: no
//! answer tool and no schema are sent, and its form (`machine/answer_form.rs`)
//! says how the text is read and words its finalize and repair requests.
//!
//! With [`Machine::with_approval`], a turn whose calls include an `ask` or a
//! `deny` tool's stops at an approval point before any of them runs:
//! [`poll`](Machine::poll) returns `None` while
//! [`pending_approval`](Machine::pending_approval) names the call waiting,
//! [`handle_decision`](Machine::handle_decision) takes each decision, and
//! [`snapshot`](Machine::snapshot) / [`Machine::resume`] pause and continue
//! the run there (`machine/approving.rs`).

use crate::answer::{AnswerPolicy, prompt_instruction};
use crate::approval::{CallState, modified_note};
use crate::backend::{BackendError, ModelRequest, OutputFormat};
use crate::budget::{Budget, OnBudget, OnNothingNew, OnRepeat};
use crate::contract::AnswerContract;
use crate::conversation::ToolSpec;
use crate::conversation::{
    Conversation, Message, ModelTurn, StopReason, ToolCall, ToolResult, Usage,
};
use crate::error::{ErrorCode, SchemaError};
use crate::json::{ExtractedFrom, ExtractionMode};
use crate::nudge::tool_first_message;
use crate::output::SchemaTarget;
use crate::output::{ANSWER_TOOL, ANSWER_TOOL_DESCRIPTION, OutputPlan, OutputStrategy, ToolChoice};
use crate::report::{BackendFailure, RunOutcome, RunReport, ToolCallRecord};
use crate::seen_calls::{Repeats, SeenCalls, twins};
use crate::seen_results::SeenResults;
use crate::tool::ToolExecution;
use answer_form::AnswerForm;
use approving::{Approving, Held};
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
    /// How the backend takes final answers (strategy and schema dialect).
    pub plan: OutputPlan,
    /// Until a tool call has run, agent requests require a tool call and
    /// (tool strategy) leave the answer tool out: the model must look
    /// something up before it can answer. Then the model decides again.
    /// No effect without tools. Default: off.
    pub require_tool_first: bool,
}

impl MachineConfig {
    /// The backend's schema dialect.
    pub fn target(&self) -> SchemaTarget {
        self.plan.target
    }
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this request to the model.
    CallModel(ModelRequest),
    /// Execute these tool calls (concurrently) and report the results, one
    /// per call in this order. Shared with the machine, which pairs the
    /// results with the calls. Calls that repeat an earlier call of the run
    /// are not in it: the machine answers those itself.
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

pub use crate::report::RequestPurpose;

mod answer_form;
mod approving;

/// Why a model request is being made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A normal turn: tools offered.
    Agent,
    /// The tool phase ended (a budget, or a turn of repeats): one
    /// tools-disabled request for the final answer.
    Finalize(ErrorCode),
    /// The one repair turn: tools disabled. Its answer ends the run either way.
    Repair {
        /// The budget whose finalize answer was rejected, when the repair
        /// follows a finalize turn.
        finalized_after: Option<ErrorCode>,
    },
}

impl Phase {
    /// Whether the run reached its repair turn, and the budget of a finalize
    /// turn that led to it: what the report says of a run ending in this phase
    /// for any reason other than an accepted answer.
    fn history(self) -> (bool, Option<ErrorCode>) {
        match self {
            Phase::Agent | Phase::Finalize(_) => (false, None),
            Phase::Repair { finalized_after } => (true, finalized_after),
        }
    }
}

/// Whether the driver has been asked to do a state's work yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// [`Machine::poll`] has not handed it out yet.
    Due,
    /// Handed out; the machine waits for its input.
    Sent,
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// A model request of this phase.
    Model(Phase, Step),
    /// One agent turn's tool calls.
    Tools(Batch, Step),
    /// One agent turn's tool calls, held until each `ask` call has a
    /// decision ([`Machine::handle_decision`]).
    Approval(Held),
    /// The run is over.
    Done(Ending),
}

impl State {
    /// Whether the run reached its repair turn, and the budget of a finalize
    /// turn that led to it or produced its answer.
    fn history(&self) -> (bool, Option<ErrorCode>) {
        match self {
            State::Model(phase, _) => phase.history(),
            State::Tools(..) | State::Approval(_) => (false, None),
            State::Done(ending) => (ending.repair_used, ending.finalized_after),
        }
    }
}

/// How a run ended: the outcome and what the report says of its path there.
#[derive(Debug, Clone, PartialEq)]
struct Ending {
    outcome: RunOutcome,
    repair_used: bool,
    finalized_after: Option<ErrorCode>,
}

impl Ending {
    fn new(outcome: RunOutcome, (repair_used, finalized_after): (bool, Option<ErrorCode>)) -> Self {
        Ending {
            outcome,
            repair_used,
            finalized_after,
        }
    }
}

/// What an evaluated final answer leads to.
enum AfterAnswer {
    /// The run ends (accepted, refused, or rejected after the repair).
    End(Ending),
    /// The one repair turn, with the message that asks for it.
    Repair {
        message: String,
        finalized_after: Option<ErrorCode>,
    },
}

/// One turn's tool calls: all of them, in order, and the ones to execute
/// (the rest repeat an earlier call of the run). Cheap to clone.
#[derive(Debug, Clone, PartialEq)]
struct Batch {
    calls: Arc<[ToolCall]>,
    fresh: Arc<[ToolCall]>,
    repeated: Repeats,
    /// How approval settled each call, when the turn went through approval
    /// (`None`, the usual case: every fresh call runs as made).
    settled: Option<Arc<[crate::approval::CallState]>>,
    /// Whether the calls were read from the turn's text (the server
    /// returned none). Not kept across a pause for approval.
    from_text: bool,
}

/// The answer tool of the tool strategy and the tool lists it appears in.
#[derive(Debug)]
struct AnswerTool {
    /// Its name ([`ANSWER_TOOL`] unless a user tool has that name).
    name: String,
    /// The agent turns' tools: the answer tool, then the user's.
    with_user: Arc<[ToolSpec]>,
    /// The tools-disabled turns' tools: the answer tool alone.
    alone: Arc<[ToolSpec]>,
}

/// The result a repeated call gets instead of a second run.
pub const REPEATED_CALL_RESULT: &str = "not run again: this call repeats an earlier call with the same name and arguments, whose result is above. Use that result, call with other arguments, or give your final answer.";

/// The result of a call the tool-call budget could not take.
pub const BUDGET_REFUSED_RESULT: &str =
    "error: not executed: the run's tool-call budget is exhausted";

/// The result of a call the model made beside its final answer.
const BESIDE_ANSWER_RESULT: &str = "not executed: the final answer was given in the same turn";

/// The result of an answer-tool call that was accepted (for a follow-up).
const ANSWER_ACCEPTED_RESULT: &str = "the final answer was accepted";

/// The result of an answer-tool call that ended the run rejected.
const ANSWER_REJECTED_RESULT: &str = "the final answer was rejected";

/// The one repair of an empty reply in a conversation turn.
pub const REPLY_REPAIR_MESSAGE: &str =
    "Your turn ended without a reply. Reply to the user now, in plain text.";

/// The result of a call on a turn that offered no such tool.
const TOOLS_DISABLED_RESULT: &str = "not executed: tools are disabled on this turn";

/// The agent loop's decisions for one run.
#[derive(Debug)]
pub struct Machine {
    config: MachineConfig,
    contract: Arc<dyn AnswerContract>,
    output: OutputFormat,
    /// The user's tools.
    tools: Arc<[ToolSpec]>,
    /// Tool strategy: the answer tool and the tool lists it is offered in.
    answer_tool: Option<AnswerTool>,
    /// The calls run so far, to find repeats.
    seen_calls: SeenCalls,
    /// The lines of the tool results so far (`on_nothing_new`).
    seen_results: SeenResults,
    conversation: Arc<Conversation>,
    started: Instant,
    deadline: Option<Instant>,
    state: State,
    usage: Usage,
    tool_calls_executed: u32,
    turns: u32,
    extracted_from: Option<ExtractedFrom>,
    tool_records: Vec<ToolCallRecord>,
    backend_failure: Option<BackendFailure>,
    ended_at: Option<Instant>,
    /// Tool-call approval ([`Machine::with_approval`]); `None`: every call runs.
    approval: Option<Box<Approving>>,
    /// Running time before this machine's start (a resumed run's).
    carried: Duration,
    /// How the answer is read: a value of the schema, or text (a run's
    /// under `extraction = "text"`, or a conversation's reply).
    form: AnswerForm,
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
        Self::new_or_back(config, contract, tools, conversation, now).map_err(|(e, _)| e)
    }

    /// [`Machine::new`], giving the conversation back with the error (so
    /// a caller that must report it need not have copied it first).
    pub(crate) fn new_or_back(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: impl Into<Arc<[ToolSpec]>>,
        conversation: Conversation,
        now: Instant,
    ) -> Result<Self, (SchemaError, Conversation)> {
        let form = AnswerForm::of(&config.answer);
        let tools = tools.into();
        Self::assemble(config, contract, tools, conversation, now, true, form)
    }

    /// A machine at the start of a run whose answer takes `form`; `fresh`: a
    /// new conversation (the prompt strategy's instruction is added to its
    /// system prompt), not a resumed one (which has it already).
    fn assemble(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: Arc<[ToolSpec]>,
        mut conversation: Conversation,
        now: Instant,
        fresh: bool,
        form: AnswerForm,
    ) -> Result<Self, (SchemaError, Conversation)> {
        let schema = match answer_schema(contract.as_ref(), &config.plan, &config.answer) {
            Ok(schema) => schema,
            Err(e) => return Err((e, conversation)),
        };
        // A text answer travels as text: no answer tool, no schema in the
        // prompt or the request.
        let (answer_tool, output) = match form {
            AnswerForm::Text(_) => (None, OutputFormat::Text),
            AnswerForm::Json => {
                let answer_tool = json_answer_tool(&config.plan, &tools, &schema);
                if fresh && config.plan.strategy == OutputStrategy::Prompt {
                    let instruction = prompt_instruction(&schema);
                    conversation.system = Some(match conversation.system.take() {
                        Some(s) if !s.trim().is_empty() => format!("{s}\n\n{instruction}"),
                        _ => instruction,
                    });
                }
                let output = OutputFormat::JsonSchema {
                    name: contract.format_name().to_string(),
                    schema,
                };
                (answer_tool, output)
            }
        };
        let deadline = config.budget.deadline.map(|d| now + d);
        Ok(Machine {
            config,
            contract,
            output,
            tools,
            answer_tool,
            seen_calls: SeenCalls::default(),
            seen_results: SeenResults::default(),
            conversation: Arc::new(conversation),
            started: now,
            deadline,
            state: State::Model(Phase::Agent, Step::Due),
            usage: Usage::default(),
            tool_calls_executed: 0,
            turns: 0,
            extracted_from: None,
            tool_records: Vec::new(),
            backend_failure: None,
            ended_at: None,
            approval: None,
            carried: Duration::ZERO,
            form,
        })
    }

    /// A machine for one agent turn of a conversation, started at `now`:
    /// tools as in any run, but the answer is the turn's text — the reply
    /// to the user, accepted as a JSON string — not a value of the contract's
    /// schema. No answer tool is offered, no schema is attached or written
    /// into the system prompt, and `require_tool_first` does not apply (an
    /// agent may have to ask before it can look anything up). An empty reply
    /// gets the one repair; empty again, the turn ends with
    /// [`ErrorCode::EmptyReply`]. A budget's finalize turn asks for the reply.
    /// The reply is a text answer read as written, whatever the stop reason
    /// (a refusal or a cut-off reply is still what the user reads).
    pub fn new_reply(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: impl Into<Arc<[ToolSpec]>>,
        conversation: Conversation,
        now: Instant,
    ) -> Result<Self, SchemaError> {
        Self::reply_or_back(config, contract, tools, conversation, now).map_err(|(e, _)| e)
    }

    /// [`Machine::new_reply`], giving the conversation back with the error.
    pub(crate) fn reply_or_back(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: impl Into<Arc<[ToolSpec]>>,
        conversation: Conversation,
        now: Instant,
    ) -> Result<Self, (SchemaError, Conversation)> {
        // A conversation turn does not wait for a tool call: an agent may
        // have to ask before it can look anything up.
        let config = MachineConfig {
            require_tool_first: false,
            ..config
        };
        let form = AnswerForm::REPLY;
        let tools = tools.into();
        Self::assemble(config, contract, tools, conversation, now, false, form)
    }

    /// The run's deadline, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The schema dialect of the backend this run talks to: tool calls are
    /// decoded from its wire form ([`ToolBox::execute_all_for`](crate::ToolBox::execute_all_for)).
    pub fn target(&self) -> SchemaTarget {
        self.config.target()
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
        loop {
            match &mut self.state {
                State::Model(phase, Step::Due) => {
                    let phase = *phase;
                    if self.past_deadline(now) {
                        return Some(self.finish(error(ErrorCode::DeadlineExceeded), now));
                    }
                    if phase == Phase::Agent && self.turns >= self.config.budget.max_turns {
                        // Ends the run or turns to the finalize phase: decide again.
                        self.budget_hit(
                            ErrorCode::MaxTurnsExceeded,
                            self.config.budget.on_budget,
                            now,
                        );
                        continue;
                    }
                    let request = self.request(phase);
                    tracing::trace!(?phase, turn = self.turns + 1, "request model");
                    self.state = State::Model(phase, Step::Sent);
                    return Some(Action::CallModel(request));
                }
                State::Tools(batch, step @ Step::Due) => {
                    *step = Step::Sent;
                    return Some(Action::CallTools(Arc::clone(&batch.fresh)));
                }
                State::Approval(held) => {
                    // Every call decided: the turn goes on (the calls are shared;
                    // their decided states are copied, once per turn).
                    let decided = (!held.waits()).then(|| held.clone());
                    if self.past_deadline(now) {
                        return Some(self.finish(error(ErrorCode::DeadlineExceeded), now));
                    }
                    let Some(held) = decided else {
                        // Waiting for decisions: `pending_approval` says for which call.
                        return None;
                    };
                    self.release(held, now);
                }
                State::Done(_) => return Some(Action::Done),
                State::Model(_, Step::Sent) | State::Tools(_, Step::Sent) => return None,
            }
        }
    }

    /// Why the model request the machine is at (due or handed out by
    /// [`poll`](Self::poll)) is made; `None` when it is not at a model
    /// request (running tools, or done).
    pub fn request_purpose(&self) -> Option<RequestPurpose> {
        match self.state {
            State::Model(Phase::Agent, _) => Some(RequestPurpose::Agent),
            State::Model(Phase::Finalize(code), _) => Some(RequestPurpose::Finalize(code)),
            State::Model(Phase::Repair { .. }, _) => Some(RequestPurpose::Repair),
            State::Tools(..) | State::Approval(_) | State::Done(_) => None,
        }
    }

    /// Takes what happened at `now`.
    pub fn handle(&mut self, input: Input, now: Instant) {
        // Each arm below sets the next state.
        match (&self.state, input) {
            (State::Done(_), _) => {}
            (_, Input::DeadlineExceeded) => {
                self.finish(error(ErrorCode::DeadlineExceeded), now);
            }
            (State::Model(_, Step::Sent), Input::BackendFailed(e)) => {
                // Tokens reported before it failed were spent.
                self.usage.add(*e.spent);
                self.backend_failure = Some(BackendFailure::of(&e));
                self.finish(error(ErrorCode::BackendError), now);
            }
            (State::Model(phase, Step::Sent), Input::Turn(turn)) => {
                let phase = *phase;
                self.on_turn(phase, turn, now)
            }
            (State::Tools(batch, Step::Sent), Input::ToolsDone(executions)) => {
                let batch = batch.clone();
                self.on_tools(&batch, executions, now)
            }
            (_, input) => {
                // An input the machine did not ask for: a driver bug. End the
                // run with its own code rather than guess. (The input's content
                // can hold model text and tool output: only its kind is logged.)
                tracing::error!(input = input_kind(&input), "unexpected input for state");
                self.finish(error(ErrorCode::InternalError), now);
            }
        }
    }

    fn on_turn(&mut self, phase: Phase, turn: ModelTurn, now: Instant) {
        let ModelTurn {
            mut text,
            mut tool_calls,
            usage,
            stop,
            reasoning,
        } = turn;
        self.turns += 1;
        self.usage.add(usage);
        // Calls the model wrote into its text stand for the text: the
        // history then shows the calls as calls, each with its result.
        let from_text = if tool_calls.is_empty() && phase == Phase::Agent {
            tool_calls = self.calls_in_text(&text);
            !tool_calls.is_empty()
        } else {
            false
        };
        if from_text {
            text.clear();
        }
        let calls: Arc<[ToolCall]> = tool_calls.into();
        // The text moves into the conversation (an answer can be large); it is
        // read back from there below.
        self.conversation_mut().messages.push(Message::Assistant {
            text,
            tool_calls: calls.to_vec(),
            reasoning,
        });
        if let Some(max) = self.config.budget.max_tokens
            && self.usage.total() > max
        {
            self.finish(error(ErrorCode::MaxTokensExceeded), now);
            return;
        }
        if let Some(limit) = self.config.budget.max_cost
            && limit.price.cost(&self.usage) > limit.max_usd
        {
            self.finish(error(ErrorCode::MaxCostExceeded), now);
            return;
        }
        if self.past_deadline(now) {
            self.finish(error(ErrorCode::DeadlineExceeded), now);
            return;
        }
        let at = self.answer_call(&calls);
        if at.is_none() && phase == Phase::Agent && !calls.is_empty() {
            let refused = self.over_budget(&calls);
            self.start_batch(calls, refused, from_text, now);
            return;
        }
        if phase == Phase::Agent && self.must_call_a_tool() {
            // A tool call was required and the model wrote text instead (a
            // server may not enforce the requirement): not an answer, and not
            // the repair. Ask again, naming the tools, until `max_idle_turns`
            // such turns in a row end the run (`max_turns` bounds it too).
            // Until a tool has run, every agent turn that gets here was text:
            // the run's turns so far are its idle turns in a row.
            if self.turns >= self.config.budget.max_idle_turns {
                self.budget_hit(ErrorCode::NoProgress, self.config.budget.on_idle, now);
                return;
            }
            tracing::trace!("text before the first tool call; asking for a tool call");
            let nudge = tool_first_message(&self.tools);
            self.conversation_mut().push_user(nudge);
            self.state = State::Model(Phase::Agent, Step::Due);
            return;
        }
        // A final answer: the answer tool's arguments, or else the text.
        // Nothing else of the turn runs (on a tools-disabled turn only the
        // answer can count).
        self.on_answer(phase, stop, &calls, at, now);
    }

    /// The calls written in an agent turn's `text`, of the tools that turn
    /// offered, when the plan reads text calls (see [`text_calls`](crate::text_calls)).
    /// Each gets an id no provider id can take: `text-<turn>-<index>`.
    fn calls_in_text(&self, text: &str) -> Vec<ToolCall> {
        if !self.config.plan.read_text_calls || text.is_empty() || self.tools.is_empty() {
            return Vec::new();
        }
        let (offered, _) = self.offer(Phase::Agent);
        crate::text_calls::read(text, |name| offered.iter().any(|t| t.name == name))
            .into_iter()
            .enumerate()
            .map(|(index, call)| ToolCall {
                id: format!("text-{}-{index}", self.turns),
                name: call.name,
                arguments: call.arguments,
            })
            .collect()
    }

    /// Whether agent requests must still require a tool call
    /// ([`MachineConfig::require_tool_first`] and no tool call yet).
    fn must_call_a_tool(&self) -> bool {
        self.config.require_tool_first && self.tool_calls_executed == 0 && !self.tools.is_empty()
    }

    /// Evaluates the final answer of the turn just pushed: the arguments of
    /// `calls[at]` (the answer tool), or the text when `at` is `None`.
    fn on_answer(
        &mut self,
        phase: Phase,
        stop: StopReason,
        calls: &[ToolCall],
        at: Option<usize>,
        now: Instant,
    ) {
        // Read in place: an answer can be large.
        let answer = match (self.conversation.messages.last(), at) {
            (Some(Message::Assistant { tool_calls, .. }), Some(i)) => {
                tool_calls.get(i).map_or("", |c| c.arguments.as_str())
            }
            (Some(Message::Assistant { text, .. }), None) => text.as_str(),
            _ => "",
        };
        // An answer call's arguments are judged on their own: a turn cut by
        // the token limit after a complete call (seen: a second call that ran
        // on) does not cut the first, and incomplete arguments do not parse
        // (`truncated`) anyway.
        let stop = match (stop, at) {
            (StopReason::ToolUse | StopReason::Length, Some(_)) => StopReason::EndTurn,
            (stop, _) => stop,
        };
        let read = self.form.read(
            self.contract.as_ref(),
            self.config.target(),
            answer,
            stop,
            &self.config.answer,
        );
        let verdict = match read {
            Ok(accepted) => {
                self.extracted_from = accepted.extracted_from;
                let (repair_used, finalized_after) = match phase {
                    Phase::Finalize(code) => (false, Some(code)),
                    other => other.history(),
                };
                AfterAnswer::End(Ending {
                    outcome: RunOutcome::Ok {
                        value: accepted.value,
                    },
                    repair_used,
                    finalized_after,
                })
            }
            Err(rejection)
                if rejection.code == ErrorCode::Refused
                    || matches!(phase, Phase::Repair { .. }) =>
            {
                AfterAnswer::End(self.ending(error(rejection.code)))
            }
            Err(rejection) => {
                tracing::trace!(code = %rejection.code, "final answer rejected; one repair");
                let finalized_after = match phase {
                    Phase::Finalize(code) => Some(code),
                    Phase::Agent | Phase::Repair { .. } => None,
                };
                AfterAnswer::Repair {
                    message: self
                        .form
                        .repair_message(&rejection, self.answer_tool_name()),
                    finalized_after,
                }
            }
        };
        // Every call of the turn gets a result, so the conversation stays
        // well-formed for the repair or a follow-up question. The answer
        // call's result is its verdict: accepted, rejected, or the repair
        // message itself.
        if !calls.is_empty() {
            let (answer_result, accepted) = match &verdict {
                AfterAnswer::End(Ending {
                    outcome: RunOutcome::Ok { .. },
                    ..
                }) => (ANSWER_ACCEPTED_RESULT, true),
                AfterAnswer::End(_) => (ANSWER_REJECTED_RESULT, false),
                AfterAnswer::Repair { message, .. } => (message.as_str(), false),
            };
            let other = if at.is_some() {
                BESIDE_ANSWER_RESULT
            } else {
                TOOLS_DISABLED_RESULT
            };
            let results = calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let is_answer = Some(i) == at;
                    ToolResult {
                        id: c.id.clone(),
                        is_error: !(is_answer && accepted),
                        content: if is_answer { answer_result } else { other }.to_string(),
                    }
                })
                .collect();
            self.conversation_mut()
                .messages
                .push(Message::ToolResults { results });
        }
        match verdict {
            AfterAnswer::End(ending) => {
                self.end(ending, now);
            }
            AfterAnswer::Repair {
                message,
                finalized_after,
            } => {
                // A text answer's repair is a user message; an answer call's
                // is its result, above.
                if at.is_none() {
                    self.conversation_mut().push_user(message);
                }
                self.state = State::Model(Phase::Repair { finalized_after }, Step::Due);
            }
        }
    }

    /// The index of the first call to the answer tool, if there is one.
    fn answer_call(&self, calls: &[ToolCall]) -> Option<usize> {
        let name = self.answer_tool_name()?;
        calls.iter().position(|c| c.name == name)
    }

    /// The answer tool's name under the tool strategy.
    fn answer_tool_name(&self) -> Option<&str> {
        self.answer_tool.as_ref().map(|a| a.name.as_str())
    }

    /// The request of a `phase` turn: the tools it offers, whether a call is
    /// required, and whether the structured-output field rides along.
    ///
    /// Under the tool strategy the answer tool is offered beside the user's
    /// tools, and alone — with a call required — on a turn that offers no
    /// other (repair, finalize, a run without tools). Measured on llama.cpp:
    /// there the model answers through the tool it sees (14 of 15 records
    /// right), while a grammar-forced JSON answer after tool calls copied the
    /// tool-call shape (`"name": "search"` in 6 of 15).
    fn request(&self, phase: Phase) -> ModelRequest {
        let (tools, tool_choice) = self.offer(phase);
        let output = match self.config.plan.strategy {
            OutputStrategy::Native if tools.is_empty() || self.config.plan.schema_on_tool_turns => {
                self.output.clone()
            }
            _ => OutputFormat::Text,
        };
        ModelRequest {
            conversation: Arc::clone(&self.conversation),
            tools,
            tool_choice,
            output,
            max_output_tokens: self.config.max_output_tokens,
        }
    }

    /// The tools a request of `phase` offers, and whether it requires a
    /// call (see [`request`](Self::request)).
    fn offer(&self, phase: Phase) -> (Arc<[ToolSpec]>, ToolChoice) {
        let agent = phase == Phase::Agent;
        match (&self.answer_tool, agent) {
            (_, true) if self.must_call_a_tool() => (Arc::clone(&self.tools), ToolChoice::Required),
            (Some(answer), true) if !self.tools.is_empty() => {
                (Arc::clone(&answer.with_user), ToolChoice::Auto)
            }
            (Some(answer), _) => (Arc::clone(&answer.alone), ToolChoice::Required),
            (None, true) => (Arc::clone(&self.tools), ToolChoice::Auto),
            (None, false) => (Arc::from(Vec::new()), ToolChoice::Auto),
        }
    }

    /// Which calls of a turn the tool-call budget refuses, when it cannot
    /// take them all (`None`: it can). A call that is the same as an earlier
    /// call of its turn runs once with it and is not counted again; the
    /// others are counted in order, the ones that fit run, and the rest —
    /// with their twins — are refused.
    fn over_budget(&self, calls: &[ToolCall]) -> Option<Vec<bool>> {
        let max = self.config.budget.max_tool_calls?;
        let left = max.saturating_sub(self.tool_calls_executed) as usize;
        // The usual turn fits whole: no call is compared with another.
        if calls.len() <= left {
            return None;
        }
        let twins = twins(calls);
        let twin = |i: usize| twins.as_ref().and_then(|t| t[i]);
        let requested = (0..calls.len()).filter(|&i| twin(i).is_none()).count();
        if requested <= left {
            return None;
        }
        let mut refused = vec![false; calls.len()];
        let mut taken = 0;
        for i in 0..calls.len() {
            refused[i] = match twin(i) {
                Some(j) => refused[j],
                None if taken < left => {
                    taken += 1;
                    false
                }
                None => true,
            };
        }
        Some(refused)
    }

    /// Sets up a turn's tool calls: the ones that repeat an earlier call of
    /// the run and the ones the budget `refused` are answered here, the
    /// rest go to the driver.
    fn start_batch(
        &mut self,
        calls: Arc<[ToolCall]>,
        refused: Option<Vec<bool>>,
        from_text: bool,
        now: Instant,
    ) {
        // The calls are the last message's: `on_turn` has just pushed it. The
        // machine only appends to its conversation, so a call's place there
        // stays valid for the run.
        let message = self.conversation.messages.len().saturating_sub(1);
        debug_assert!(matches!(
            self.conversation.messages.last(),
            Some(Message::Assistant { tool_calls, .. }) if tool_calls[..] == calls[..]
        ));
        let repeated = self.seen_calls.record_turn(&self.conversation, message);
        let is_refused = |i: usize| refused.as_ref().is_some_and(|r| r[i]);
        // Usually no call repeats and the budget takes them all: then the
        // batch itself is shared, not copied.
        let fresh: Arc<[ToolCall]> = match repeated.any() || refused.is_some() {
            false => Arc::clone(&calls),
            true => calls
                .iter()
                .enumerate()
                .filter(|(i, _)| !repeated.of(*i) && !is_refused(*i))
                .map(|(_, c)| c.clone())
                .collect(),
        };
        let settled = refused.as_ref().map(|refused| {
            refused
                .iter()
                .enumerate()
                .map(|(i, refused)| match *refused {
                    true => CallState::NotRun {
                        result: BUDGET_REFUSED_RESULT.to_string(),
                    },
                    false if repeated.of(i) => CallState::Repeat,
                    false => CallState::Run,
                })
                .collect()
        });
        let over_budget = refused.is_some();
        let batch = Batch {
            calls,
            fresh,
            repeated,
            settled,
            from_text,
        };
        if !batch.fresh.is_empty()
            && let Some(held) = self.hold_for_approval(&batch)
        {
            self.state = State::Approval(held);
            return;
        }
        if batch.fresh.is_empty() {
            // Nothing to run: every call repeats an earlier one (or the
            // budget refused the rest). Each still gets its result; then,
            // under `on_repeat = finalize`, the loop is over: the next
            // request asks for the answer, tools disabled.
            self.on_tools(&batch, Vec::new(), now);
            if !over_budget && self.config.budget.on_repeat == OnRepeat::Finalize && !self.is_done()
            {
                self.finalize(ErrorCode::ToolCallsRepeated);
            }
        } else {
            self.state = State::Tools(batch, Step::Due);
        }
    }

    fn on_tools(&mut self, batch: &Batch, executions: Vec<ToolExecution>, now: Instant) {
        // A call the same as an earlier one of its turn gets that one's
        // result (it ran once, for both); only a turn with a repeat can
        // hold one.
        let twins = match batch.repeated.any() {
            true => twins(&batch.calls),
            false => None,
        };
        let twin = |i: usize| twins.as_ref().and_then(|t| t[i]);
        let refused = |i: usize| {
            batch.settled.as_ref().and_then(|s| s.get(i)).is_some_and(
                |s| matches!(s, CallState::NotRun { result } if result == BUDGET_REFUSED_RESULT),
            )
        };
        let counted = (0..batch.calls.len())
            .filter(|&i| twin(i).is_none() && !refused(i))
            .count();
        self.tool_calls_executed = self.tool_calls_executed.saturating_add(counted as u32);
        let mut executions = executions.into_iter();
        let mut results: Vec<ToolResult> = Vec::with_capacity(batch.calls.len());
        // Whether each call went well, kept only for a turn with twins (a
        // run in flight is memory: most turns allocate nothing for it).
        let mut oks: Vec<bool> = match twins {
            Some(_) => Vec::with_capacity(batch.calls.len()),
            None => Vec::new(),
        };
        // Whether the calls that ran all went well and brought nothing new
        // (`on_nothing_new`): false once one ran with news or an error.
        let (mut ran, mut nothing_new) = (false, true);
        for (index, call) in batch.calls.iter().enumerate() {
            let repeated = batch.repeated.of(index);
            let settled = batch.settled.as_ref().and_then(|s| s.get(index));
            let first = twin(index).and_then(|j| Some((results.get(j)?, *oks.get(j)?)));
            let (result, ok, duration_ms) = if let Some((first, ok)) = first {
                let result = ToolResult {
                    id: call.id.clone(),
                    ..first.clone()
                };
                (result, ok, 0.0)
            } else if repeated {
                let result = ToolResult {
                    id: call.id.clone(),
                    content: REPEATED_CALL_RESULT.to_string(),
                    is_error: true,
                };
                (result, false, 0.0)
            } else if let Some(CallState::NotRun { result }) = settled {
                let result = ToolResult {
                    id: call.id.clone(),
                    content: result.clone(),
                    is_error: true,
                };
                (result, false, 0.0)
            } else {
                match executions.next() {
                    Some(mut e) => {
                        let ok = !e.result.is_error;
                        ran = true;
                        // Lines are kept only when the setting reads them:
                        // by default a run pays nothing for it.
                        if self.config.budget.on_nothing_new == OnNothingNew::Finalize {
                            let news = self.seen_results.take_in(&e.result.content);
                            nothing_new &= ok && !news;
                        }
                        if let Some(CallState::RunWith { arguments }) = settled {
                            e.result.content = modified_note(arguments, &e.result.content);
                        }
                        (e.result, ok, e.duration.as_secs_f64() * 1000.0)
                    }
                    // A driver that returned fewer executions than calls:
                    // every call still needs a result for the provider.
                    None => {
                        let result = ToolResult {
                            id: call.id.clone(),
                            content: "error: the tool produced no result".to_string(),
                            is_error: true,
                        };
                        (result, false, 0.0)
                    }
                }
            };
            let arguments = match settled {
                Some(CallState::RunWith { arguments }) => arguments.clone(),
                _ => call.arguments.clone(),
            };
            // A call the budget refused did not execute: no record.
            if !refused(index) {
                self.tool_records.push(ToolCallRecord {
                    name: call.name.clone(),
                    arguments,
                    ok,
                    duration_ms,
                    repeated,
                    from_text: batch.from_text,
                });
            }
            results.push(result);
            if twins.is_some() {
                oks.push(ok);
            }
        }
        self.conversation_mut()
            .messages
            .push(Message::ToolResults { results });
        if self.past_deadline(now) {
            self.finish(error(ErrorCode::DeadlineExceeded), now);
            return;
        }
        if (0..batch.calls.len()).any(refused) {
            self.budget_hit(
                ErrorCode::MaxToolCallsExceeded,
                self.config.budget.on_budget,
                now,
            );
            return;
        }
        self.state = State::Model(Phase::Agent, Step::Due);
        if ran
            && nothing_new
            && self.config.budget.on_nothing_new == OnNothingNew::Finalize
            && !self.is_done()
        {
            self.finalize(ErrorCode::NothingNew);
        }
    }

    /// A budget was hit: end the run, or (policy `finalize`) get ready for the
    /// one tools-disabled final-answer request.
    fn budget_hit(&mut self, code: ErrorCode, policy: OnBudget, now: Instant) {
        match policy {
            OnBudget::Fail => {
                self.finish(error(code), now);
            }
            OnBudget::Finalize => self.finalize(code),
        }
    }

    /// Gets ready for the one tools-disabled final-answer request, `code`
    /// being why the tool phase ended.
    fn finalize(&mut self, code: ErrorCode) {
        tracing::trace!(%code, "tool phase over; asking for the final answer");
        let message = self.form.finalize_message(code, self.answer_tool_name());
        self.conversation_mut().push_user(message);
        self.state = State::Model(Phase::Finalize(code), Step::Due);
    }

    fn past_deadline(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }

    /// Ends the run at `now` with `code`: what the driver found its tools'
    /// world in after a batch of calls ([`ToolBox::halt_when`](crate::ToolBox::halt_when)).
    /// A finished run stays as it ended.
    pub(crate) fn halt(&mut self, code: ErrorCode, now: Instant) {
        if !matches!(self.state, State::Done(_)) {
            self.finish(error(code), now);
        }
    }

    /// Ends the run with `outcome` at `now`, for any reason other than an
    /// accepted answer.
    fn finish(&mut self, outcome: RunOutcome, now: Instant) -> Action {
        let ending = self.ending(outcome);
        self.end(ending, now)
    }

    fn end(&mut self, ending: Ending, now: Instant) -> Action {
        self.ended_at = Some(now);
        self.state = State::Done(ending);
        Action::Done
    }

    /// `outcome` with what the current state says of the run's path.
    fn ending(&self, outcome: RunOutcome) -> Ending {
        Ending::new(outcome, self.state.history())
    }

    /// The report of a finished run (a run stopped before its end reports
    /// [`ErrorCode::InternalError`]: the driver gave up on it).
    pub fn into_report(self) -> RunReport {
        self.into_parts().0
    }

    /// The report and the final conversation.
    pub fn into_parts(mut self) -> (RunReport, Conversation) {
        let approvals = self.take_approvals();
        let ending = match self.state {
            State::Done(ending) => ending,
            unfinished => Ending::new(error(ErrorCode::InternalError), unfinished.history()),
        };
        let wall = self.carried
            + self
                .ended_at
                .map(|e| e.saturating_duration_since(self.started))
                .unwrap_or(Duration::ZERO);
        let report = RunReport {
            outcome: ending.outcome,
            repair_used: ending.repair_used,
            extracted_from: self.extracted_from,
            usage: self.usage,
            tool_calls: self.tool_records,
            turns: self.turns,
            wall_ms: wall.as_secs_f64() * 1000.0,
            finalized_after: ending.finalized_after,
            backend_failure: self.backend_failure,
            approvals,
        };
        let conversation =
            Arc::try_unwrap(self.conversation).unwrap_or_else(|shared| (*shared).clone());
        (report, conversation)
    }

    /// The conversation, to append one message to. Copies it first only if
    /// a request still holds it (copy on write).
    ///
    /// A full message list moves to a fresh buffer of twice the room (at
    /// least 4, as a vector grows) instead of growing in place: cheaper for
    /// allocators whose `realloc` of a block made on another thread takes a
    /// lock (why, measured: BENCHMARKS.md, "Fifth look").
    fn conversation_mut(&mut self) -> &mut Conversation {
        let conversation = Arc::make_mut(&mut self.conversation);
        let messages = &mut conversation.messages;
        if messages.len() == messages.capacity() {
            let mut grown = Vec::with_capacity(messages.len().saturating_mul(2).max(4));
            grown.append(messages);
            *messages = grown;
        }
        conversation
    }
}

fn error(code: ErrorCode) -> RunOutcome {
    RunOutcome::Error { code }
}

/// The wire schema `contract` answers in under `plan`. Fails when it cannot
/// be compiled for the plan's target, or when the tool strategy would need
/// it as tool parameters and it is not an object.
pub(crate) fn answer_schema(
    contract: &dyn AnswerContract,
    plan: &OutputPlan,
    answer: &AnswerPolicy,
) -> Result<Arc<serde_json::Value>, SchemaError> {
    let schema = contract.wire_schema(plan.target)?;
    // A text answer has no answer tool, so any schema will do.
    if plan.strategy == OutputStrategy::Tool
        && answer.mode != ExtractionMode::Text
        && !contract.wire_root_is_object(plan.target)
    {
        return Err(SchemaError::new(
            "",
            "the tool output strategy needs an answer whose wire schema is an object",
        ));
    }
    Ok(schema)
}

/// The answer tool of a run whose answer is a value of `schema`: under the
/// tool strategy only.
fn json_answer_tool(
    plan: &OutputPlan,
    tools: &[ToolSpec],
    schema: &serde_json::Value,
) -> Option<AnswerTool> {
    match plan.strategy {
        OutputStrategy::Tool => {
            let name = answer_tool_name(tools);
            let spec = ToolSpec {
                name: name.clone(),
                description: ANSWER_TOOL_DESCRIPTION.to_string(),
                parameters: schema.clone(),
            };
            // The answer tool comes first. Measured on llama.cpp (0.5B,
            // the structured_output arena's second turn, temperature 0):
            // listed last, 0 of 15 runs answered after their search and
            // all repeated it; listed first, 15 of 15 answered. It also
            // makes the answer-only tool list of a finalize or repair
            // turn a prefix of this one.
            let with_user: Arc<[ToolSpec]> = std::iter::once(spec.clone())
                .chain(tools.iter().cloned())
                .collect();
            Some(AnswerTool {
                name,
                with_user,
                alone: Arc::from(vec![spec]),
            })
        }
        OutputStrategy::Native | OutputStrategy::Prompt => None,
    }
}

/// The answer tool's name: [`ANSWER_TOOL`], or with a number appended when a
/// user tool already has that name.
fn answer_tool_name(tools: &[ToolSpec]) -> String {
    let taken = |n: &str| tools.iter().any(|t| t.name == n);
    if !taken(ANSWER_TOOL) {
        return ANSWER_TOOL.to_string();
    }
    (1..)
        .map(|i| format!("{ANSWER_TOOL}_{i}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| ANSWER_TOOL.to_string())
}

/// The kind of an input, for logs that must not carry its content.
fn input_kind(input: &Input) -> &'static str {
    match input {
        Input::Turn(_) => "turn",
        Input::BackendFailed(_) => "backend_failed",
        Input::ToolsDone(_) => "tools_done",
        Input::DeadlineExceeded => "deadline_exceeded",
    }
}
