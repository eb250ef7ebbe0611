//! [`Agent`]: the embedder's entry point. Holds a backend, tools, a system
//! prompt, the answer contract and budgets; each [`Agent::run`] is one run.
//! An `Agent<T>` made by [`Agent::for_type`] answers with a `T`.

use crate::answer::AnswerPolicy;
use crate::approval::{ApprovalPolicy, ArgumentCheck, Decision};
use crate::approver::{Approver, Preset};
use crate::backend::{Backend, BackendError, ModelRequest, OutputFormat};
use crate::budget::Budget;
use crate::contract::AnswerContract;
use crate::conversation::{Conversation, ModelTurn};
use crate::driver::{Approvals, drive_boxed, run_end};
use crate::error::{ErrorCode, SchemaError};
use crate::event::{EventSink, RunStream};
use crate::machine::{Machine, MachineConfig, answer_schema};
use crate::output::ToolChoice;
use crate::report::{RunOutcome, RunReport};
use crate::schema::OutputSchema;
use crate::snapshot::{RunEnd, RunSnapshot, SnapshotError};
use crate::tool::ToolBox;
use crate::typed::TypedContract;
use futures::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

mod converse;
pub use converse::{ConversationEnd, ConversationEvent, ConversationRun};

/// A configured agent whose answers are `T`s: JSON values ([`Value`], the
/// default) from [`Agent::new`], or a Rust type from [`Agent::for_type`].
/// Cheap to share; runs may proceed concurrently.
pub struct Agent<T = Value> {
    backend: Arc<dyn Backend>,
    contract: Arc<dyn AnswerContract>,
    tools: Arc<ToolBox>,
    system: Option<String>,
    budget: Budget,
    answer: AnswerPolicy,
    max_output_tokens: Option<u32>,
    require_tool_first: bool,
    approval: Option<Arc<AgentApproval>>,
    answer_type: PhantomData<fn() -> T>,
}

/// An agent's approval settings ([`Agent::with_approval`]).
struct AgentApproval {
    policy: ApprovalPolicy,
    approver: Arc<dyn Approver>,
}

impl<T> Clone for Agent<T> {
    fn clone(&self) -> Self {
        Agent {
            backend: Arc::clone(&self.backend),
            contract: Arc::clone(&self.contract),
            tools: Arc::clone(&self.tools),
            system: self.system.clone(),
            budget: self.budget,
            answer: self.answer,
            max_output_tokens: self.max_output_tokens,
            require_tool_first: self.require_tool_first,
            approval: self.approval.clone(),
            answer_type: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Agent<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("answer_type", &std::any::type_name::<T>())
            .field("backend", &self.backend)
            .field("contract", &self.contract)
            .field("tools", &self.tools)
            .field("system", &self.system)
            .field("budget", &self.budget)
            .field("answer", &self.answer)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("require_tool_first", &self.require_tool_first)
            .field("approval", &self.approval.as_ref().map(|a| &a.policy))
            .finish()
    }
}

impl std::fmt::Debug for dyn Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Backend({} / {})", self.name(), self.model())
    }
}

pub use crate::report::Run;

/// A typed run ([`Agent::run_typed`]) that did not produce a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the run failed: {code}")]
pub struct RunFailed {
    /// Why.
    pub code: ErrorCode,
    /// The report of the run.
    pub report: Box<RunReport>,
}

impl Agent {
    /// An agent that answers according to `contract`. Fails if the contract
    /// cannot be compiled for the backend's schema target.
    pub fn new(
        backend: Arc<dyn Backend>,
        contract: Arc<dyn AnswerContract>,
    ) -> Result<Self, SchemaError> {
        Agent::with_contract(backend, contract, AnswerPolicy::default())
    }

    /// An agent whose answer is text ([`ExtractionMode::Text`](crate::json::ExtractionMode::Text)):
    /// the trimmed reply, stored as a JSON string and validated by
    /// `contract` (a permissive one for free text), which is never sent: no
    /// answer tool, no schema in the request or the prompt, whatever the
    /// backend's output strategy.
    pub fn for_text(
        backend: Arc<dyn Backend>,
        contract: Arc<dyn AnswerContract>,
    ) -> Result<Self, SchemaError> {
        let text = AnswerPolicy {
            mode: crate::json::ExtractionMode::Text,
            ..AnswerPolicy::default()
        };
        Agent::with_contract(backend, contract, text)
    }

    /// An agent whose answer is a `T`. The owner schema is derived with
    /// `schemars`, and an answer counts as valid only when it also
    /// deserialises into a `T` (a failure gets the one repair like any other
    /// `schema_mismatch`), so [`Agent::run_typed`] never fails after a valid
    /// answer.
    pub fn for_type<T>(backend: Arc<dyn Backend>) -> Result<Agent<T>, SchemaError>
    where
        T: schemars::JsonSchema + DeserializeOwned + 'static,
    {
        let schema = OutputSchema::for_type::<T>()?;
        Agent::with_contract(
            backend,
            Arc::new(TypedContract::<T>::new(schema)),
            AnswerPolicy::default(),
        )
    }
}

/// The toolbox of an agent not given one: shared, so an agent built and
/// then given its tools allocates none.
fn no_tools() -> Arc<ToolBox> {
    static EMPTY: std::sync::LazyLock<Arc<ToolBox>> =
        std::sync::LazyLock::new(|| Arc::new(ToolBox::new()));
    EMPTY.clone()
}

impl<T> Agent<T> {
    fn with_contract(
        backend: Arc<dyn Backend>,
        contract: Arc<dyn AnswerContract>,
        answer: AnswerPolicy,
    ) -> Result<Self, SchemaError> {
        answer_schema(contract.as_ref(), &backend.output_plan(), &answer)?;
        Ok(Agent {
            backend,
            contract,
            tools: no_tools(),
            system: None,
            budget: Budget::default(),
            answer,
            max_output_tokens: None,
            require_tool_first: false,
            approval: None,
            answer_type: PhantomData,
        })
    }

    /// Sets the system prompt. Default: none.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Sets the tools. Default: none.
    pub fn with_tools(mut self, tools: impl Into<Arc<ToolBox>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// Sets the budgets. Default: [`Budget::default`].
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets how final answers are read. Default: lenient, depth 128, 1 MiB.
    pub fn with_answer_policy(mut self, answer: AnswerPolicy) -> Self {
        self.answer = answer;
        self
    }

    /// Sets the per-request output-token ceiling. Default: none (the
    /// backend's own default).
    pub fn with_max_output_tokens(mut self, max: u32) -> Self {
        self.max_output_tokens = Some(max);
        self
    }

    /// Requires a tool call before the first answer: until a tool call has
    /// run, requests require one and (tool strategy) leave the answer tool
    /// out; then the model decides. For tasks whose answer must come from the
    /// tools (a small model otherwise answers from memory). Default: off.
    pub fn with_tool_required_first(mut self, required: bool) -> Self {
        self.require_tool_first = required;
        self
    }

    /// Puts tool calls to `approver` under `policy` before they run: an
    /// `ask` tool's calls wait for its [`Decision`] (within the run's
    /// deadline), a `deny` tool's calls are refused without asking, `auto`
    /// ones run at once. Every run of the agent follows it; in
    /// [`run`](Self::run) and the other unpausable runs a
    /// [`Decision::Later`] ends the run with
    /// [`ErrorCode::ApprovalPending`], in [`start`](Self::start) and
    /// [`resume`](Self::resume) it pauses the run. Default: none (every call
    /// runs).
    pub fn with_approval(mut self, policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        self.approval = Some(Arc::new(AgentApproval { policy, approver }));
        self
    }

    /// Runs the agent on one user input, pausably: when the approver answers
    /// [`Decision::Later`] for a call, the run stops there and
    /// [`RunEnd::Paused`] holds its [`RunSnapshot`], which
    /// [`resume`](Self::resume) continues — in this process or another, with
    /// an agent of the same configuration. Otherwise as [`run`](Self::run),
    /// and [`RunEnd::Finished`] also holds the approval records.
    pub fn start<'a>(&'a self, input: &str) -> impl Future<Output = RunEnd> + Send + use<'a, T> {
        let conversation = Conversation::new(self.system.clone(), input);
        self.start_inner(conversation, None)
    }

    /// [`start`](Self::start) as a stream of [`RunEvent`](crate::RunEvent)s
    /// ([`run_stream`](Self::run_stream)'s, with each ask and decision): the
    /// last event is [`RunEvent::Finished`](crate::RunEvent::Finished), or
    /// [`RunEvent::Paused`](crate::RunEvent::Paused) with the snapshot when
    /// the approver says later.
    pub fn start_stream(&self, input: &str) -> RunStream<'_> {
        let conversation = Conversation::new(self.system.clone(), input);
        let (sink, events) = RunStream::channel();
        let run = Box::pin(async move { self.start_inner(conversation, Some(&sink)).await });
        RunStream::pausable(run, events)
    }

    /// [`start`](Self::start) and [`start_stream`](Self::start_stream):
    /// a fresh pausable run of `conversation`, with `events` told of it.
    async fn start_inner(
        &self,
        conversation: Conversation,
        events: Option<EventSink<'_>>,
    ) -> RunEnd {
        let now = tokio::time::Instant::now().into_std();
        match self.machine_for(conversation, now) {
            Ok(machine) => {
                let approver = Preset::new(Vec::new(), self.approver());
                self.drive_pausable(machine, &approver, events).await
            }
            Err(run) => RunEnd::Finished(run),
        }
    }

    /// Continues a paused run: `decisions` answer the asks that follow, in
    /// order — first the snapshot's pending calls, in call order
    /// ([`RunSnapshot::pending_calls`]), then any later turn's; once they
    /// run out, the agent's approver answers ([`with_approval`](Self::with_approval);
    /// without one, the run pauses again at the next ask).
    ///
    /// The agent must have the configuration the run paused with (tools and
    /// their schemas, answer schema and output plan, budgets: the snapshot's
    /// [`ConfigDigest`](crate::snapshot::ConfigDigest)); a snapshot of
    /// another is refused with [`SnapshotError::Mismatch`]
    /// ([`ErrorCode::SnapshotMismatch`]). The deadline gets the time it had
    /// left at the pause: paused time does not count.
    pub async fn resume(
        &self,
        snapshot: RunSnapshot,
        decisions: Vec<Decision>,
    ) -> Result<RunEnd, SnapshotError> {
        let config = self.machine_config();
        let tools = self.tools.specs_for(config.plan.target);
        let (policy, check) = self.approval_parts();
        let now = tokio::time::Instant::now().into_std();
        let machine = Machine::resume(
            config,
            self.contract.clone(),
            tools,
            snapshot,
            (policy, check),
            now,
        )?;
        let approver = Preset::new(decisions, self.approver());
        Ok(self
            .drive_pausable(Box::new(machine), &approver, None)
            .await)
    }

    /// The agent's approver, if it has one.
    fn approver(&self) -> Option<&dyn Approver> {
        self.approval.as_deref().map(|a| a.approver.as_ref())
    }

    /// Drives a pausable run under its `invoke_agent` span.
    async fn drive_pausable(
        &self,
        machine: Box<Machine>,
        approver: &dyn Approver,
        events: Option<EventSink<'_>>,
    ) -> RunEnd {
        let span = crate::telemetry::agent_span(self.backend.name(), self.backend.model());
        let approvals = Approvals {
            approver,
            can_pause: true,
        };
        let backend = self.backend.as_ref();
        let driven =
            drive_boxed(machine, backend, &self.tools, events, Some(approvals)).map(run_end);
        let end = tracing::Instrument::instrument(driven, span.clone()).await;
        if let RunEnd::Finished(finished) = &end {
            crate::telemetry::record_run(&span, &finished.report);
        }
        end
    }

    /// The approval settings a resumed machine takes: the agent's policy
    /// (none set: the default) and its tools as the argument check.
    fn approval_parts(&self) -> (ApprovalPolicy, Arc<dyn ArgumentCheck>) {
        let policy = self
            .approval
            .as_ref()
            .map(|a| a.policy.clone())
            .unwrap_or_default();
        (policy, self.tools.clone())
    }

    /// The machine settings of this agent's runs.
    fn machine_config(&self) -> MachineConfig {
        MachineConfig {
            budget: self.budget,
            answer: self.answer,
            max_output_tokens: self.max_output_tokens,
            plan: self.backend.output_plan(),
            require_tool_first: self.require_tool_first,
        }
    }

    /// A machine for a run of `conversation` started at `now`, with the
    /// agent's approval settings; or the failed run.
    fn machine_for(
        &self,
        conversation: Conversation,
        now: std::time::Instant,
    ) -> Result<Box<Machine>, Box<Run>> {
        let config = self.machine_config();
        let tools = self.tools.specs_for(config.plan.target);
        match Machine::new_or_back(config, self.contract.clone(), tools, conversation, now) {
            Ok(m) => Ok(Box::new(match &self.approval {
                Some(a) => {
                    let check: Arc<dyn ArgumentCheck> = self.tools.clone();
                    m.with_approval(a.policy.clone(), check)
                }
                None => m,
            })),
            // Checked in `Agent::new`; kept as data rather than a panic.
            Err((e, conversation)) => {
                tracing::error!("schema compile failed: {e}");
                Err(Box::new(Run {
                    report: RunReport::failed(ErrorCode::SchemaMismatch),
                    conversation,
                }))
            }
        }
    }

    /// The backend.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Runs the agent on one user input.
    ///
    /// The run's clock (its deadline) starts when the future is first
    /// polled.
    // Not an `async fn`: each layer of `async fn` would keep its own copy of
    // its arguments in every run's future.
    pub fn run<'a>(&'a self, input: &str) -> impl Future<Output = Run> + Send + use<'a, T> {
        self.run_inner(Conversation::new(self.system.clone(), input), None)
    }

    /// Runs the agent on one user input as a stream of [`RunEvent`](crate::RunEvent)s: each
    /// model request, the answer's text (or answer-tool arguments) as the
    /// backend streams it, the tool calls and their results, and last
    /// [`RunEvent::Finished`](crate::RunEvent::Finished) with the [`Run`] — the one [`run`](Self::run)
    /// returns for the same answers. Budgets and the deadline hold as in
    /// `run`; the live backends read the providers' streamed answers
    /// ([`Backend::complete_streaming`]), others give each turn whole.
    ///
    /// The run progresses only while the stream is polled; dropping the
    /// stream cancels it.
    pub fn run_stream(&self, input: &str) -> RunStream<'_> {
        let conversation = Conversation::new(self.system.clone(), input);
        let (sink, events) = RunStream::channel();
        let run = Box::pin(async move { self.run_inner(conversation, Some(&sink)).await });
        RunStream::new(run, events)
    }

    async fn run_inner(&self, conversation: Conversation, events: Option<EventSink<'_>>) -> Run {
        let span = crate::telemetry::agent_span(self.backend.name(), self.backend.model());
        let now = tokio::time::Instant::now().into_std();
        let machine = match self.machine_for(conversation, now) {
            Ok(m) => m,
            Err(run) => return *run,
        };
        let approvals = self.approver().map(|approver| Approvals {
            approver,
            can_pause: false,
        });
        let backend = self.backend.as_ref();
        let driven = drive_boxed(machine, backend, &self.tools, events, approvals);
        let (report, conversation) = tracing::Instrument::instrument(driven, span.clone())
            .await
            .into_finished();
        crate::telemetry::record_run(&span, &report);
        Run {
            report,
            conversation,
        }
    }

    /// Asks a plain-text follow-up question in a finished run's conversation.
    /// The answer is not schema-bound and no tools are offered.
    pub async fn follow_up(
        &self,
        conversation: &mut Conversation,
        question: &str,
    ) -> Result<String, BackendError> {
        conversation.push_user(question);
        let request = ModelRequest {
            conversation: Arc::new(conversation.clone()),
            tools: Vec::new().into(),
            tool_choice: ToolChoice::Auto,
            output: OutputFormat::Text,
            max_output_tokens: self.max_output_tokens,
        };
        let turn: ModelTurn = match self.budget.deadline {
            Some(d) => tokio::time::timeout(d, self.backend.complete(&request))
                .await
                .map_err(|_| {
                    BackendError::new(
                        crate::backend::BackendErrorKind::Transport,
                        "the follow-up timed out",
                    )
                })??,
            None => self.backend.complete(&request).await?,
        };
        conversation.push_assistant(&turn);
        Ok(turn.text)
    }
}

impl<T: DeserializeOwned> Agent<T> {
    /// Runs the agent and returns the answer as a `T`, with the run.
    ///
    /// For an agent from [`Agent::for_type`] the loop has already checked
    /// that the answer deserialises, so `Err` means the run itself failed and
    /// [`RunFailed::code`] is its report's code.
    pub async fn run_typed(&self, input: &str) -> Result<(T, Run), RunFailed> {
        let mut run = self.run(input).await;
        let code = match &run.report.outcome {
            RunOutcome::Ok { value } => match T::deserialize(value) {
                Ok(v) => return Ok((v, run)),
                // Only a contract that did not check the type gets here (an
                // `Agent::new` contract read as a `Value` always succeeds):
                // the report must not say Ok about an answer the caller
                // cannot have.
                Err(e) => {
                    tracing::debug!("the accepted answer does not deserialise: {e}");
                    run.report.outcome = RunOutcome::Error {
                        code: ErrorCode::SchemaMismatch,
                    };
                    ErrorCode::SchemaMismatch
                }
            },
            RunOutcome::Error { code } => *code,
        };
        Err(RunFailed {
            code,
            report: Box::new(run.report),
        })
    }
}
