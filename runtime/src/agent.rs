//! [`Agent`]: the embedder's entry point. Holds a backend, tools, a system
//! prompt, the answer contract and budgets; each [`Agent::run`] is one run.

use crate::answer::AnswerPolicy;
use crate::backend::{Backend, BackendError, ModelRequest, OutputFormat};
use crate::budget::Budget;
use crate::contract::AnswerContract;
use crate::conversation::{Conversation, ModelTurn};
use crate::driver::drive;
use crate::error::{ErrorCode, SchemaError};
use crate::machine::{Machine, MachineConfig, answer_schema};
use crate::output::ToolChoice;
use crate::report::{RunOutcome, RunReport};
use crate::schema::OutputSchema;
use crate::tool::ToolBox;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A configured agent. Cheap to share; runs may proceed concurrently.
#[derive(Debug, Clone)]
pub struct Agent {
    backend: Arc<dyn Backend>,
    contract: Arc<dyn AnswerContract>,
    tools: Arc<ToolBox>,
    system: Option<String>,
    budget: Budget,
    answer: AnswerPolicy,
    max_output_tokens: Option<u32>,
    require_tool_first: bool,
}

impl std::fmt::Debug for dyn Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Backend({} / {})", self.name(), self.model())
    }
}

/// A finished run: its report and the conversation, for follow-up questions.
#[derive(Debug, Clone)]
pub struct Run {
    /// The report.
    pub report: RunReport,
    /// The conversation as it ended.
    pub conversation: Conversation,
}

/// A typed run that did not produce a value.
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
        answer_schema(contract.as_ref(), &backend.output_plan())?;
        Ok(Agent {
            backend,
            contract,
            tools: Arc::new(ToolBox::new()),
            system: None,
            budget: Budget::default(),
            answer: AnswerPolicy::default(),
            max_output_tokens: None,
            require_tool_first: false,
        })
    }

    /// An agent whose answer is a `T`; the owner schema is derived with `schemars`.
    pub fn for_type<T: schemars::JsonSchema>(
        backend: Arc<dyn Backend>,
    ) -> Result<Self, SchemaError> {
        Agent::new(backend, Arc::new(OutputSchema::for_type::<T>()?))
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

    /// The backend.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Runs the agent on one user input.
    pub async fn run(&self, input: &str) -> Run {
        let conversation = Conversation::new(self.system.clone(), input);
        self.run_conversation(conversation).await
    }

    /// Runs the agent from an existing conversation (whose last message is the user's).
    pub async fn run_conversation(&self, conversation: Conversation) -> Run {
        let span = tracing::info_span!(
            "run",
            backend = %self.backend.name(),
            model = %self.backend.model(),
        );
        let config = MachineConfig {
            budget: self.budget,
            answer: self.answer,
            max_output_tokens: self.max_output_tokens,
            plan: self.backend.output_plan(),
            require_tool_first: self.require_tool_first,
        };
        let now = tokio::time::Instant::now().into_std();
        let machine = match Machine::new(
            config,
            self.contract.clone(),
            self.tools.shared_specs(),
            conversation.clone(),
            now,
        ) {
            Ok(m) => m,
            // Checked in `Agent::new`; kept as data rather than a panic.
            Err(e) => {
                tracing::error!("schema compile failed: {e}");
                return Run {
                    report: RunReport::failed(ErrorCode::SchemaMismatch),
                    conversation,
                };
            }
        };
        let (report, conversation) = tracing::Instrument::instrument(
            drive(machine, self.backend.as_ref(), &self.tools),
            span,
        )
        .await;
        Run {
            report,
            conversation,
        }
    }

    /// Runs the agent and deserialises the answer into `T`.
    pub async fn run_typed<T: DeserializeOwned>(&self, input: &str) -> Result<(T, Run), RunFailed> {
        let run = self.run(input).await;
        match &run.report.outcome {
            RunOutcome::Ok { value } => match serde_json::from_value::<T>(value.clone()) {
                Ok(v) => Ok((v, run)),
                Err(_) => Err(RunFailed {
                    code: ErrorCode::SchemaMismatch,
                    report: Box::new(run.report),
                }),
            },
            RunOutcome::Error { code } => Err(RunFailed {
                code: *code,
                report: Box::new(run.report),
            }),
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
