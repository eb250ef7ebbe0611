//! [`Review`]: one agent review — a prompt, the GREEN/RED owner schemas,
//! tools (usually the file tools over the code under review), budgets — and
//! [`run_review`], which runs it and returns the stored verdict.
//!
//! The judge extracts strictly (no fences, one JSON value). Tools stay
//! available before the final answer; the one repair turn is tools-disabled
//! and inside the original deadline (the runtime's loop does both).

use super::VerdictSchemas;
use super::hash::{digest, review_config};
use super::stored::StoredVerdict;
use serde_json::Value;
use std::sync::Arc;
use tribunal_runtime::internal::json::ExtractionMode;
use tribunal_runtime::{Agent, AnswerPolicy, Backend, Budget, Run, SchemaError, ToolBox};

/// The system prompt of a review unless one is set.
pub const DEFAULT_REVIEW_SYSTEM: &str = "You are a careful code reviewer. Read the code with \
the tools before you decide; do not guess file contents. Answer with a verdict: GREEN when the \
change is correct and meets every requirement, RED when it does not. A RED verdict names each \
problem with its file and line, and lists the requirement ids your review covered.";

/// One review's configuration.
#[derive(Debug, Clone)]
pub struct Review {
    /// The GREEN and RED owner schemas.
    pub schemas: Arc<VerdictSchemas>,
    /// The user prompt: the change and the review question.
    pub prompt: String,
    /// The system prompt. Default: [`DEFAULT_REVIEW_SYSTEM`].
    pub system: String,
    /// The tools offered. Default: none.
    pub tools: Arc<ToolBox>,
    /// Budgets. Default: [`Budget::default`].
    pub budget: Budget,
    /// How the final answer is read. Default: strict extraction.
    pub answer: AnswerPolicy,
    /// Per-request output-token ceiling. Default: the backend's.
    pub max_output_tokens: Option<u32>,
    /// Whether a tool call must come before the verdict. Default: no.
    pub require_tool_first: bool,
    /// The backend's request settings as they shape the answer (for the
    /// config hash only; the backend itself applies them), e.g.
    /// `BackendSettings::hashed()` with the resolved output plan. Default:
    /// none.
    pub settings: Option<Value>,
}

impl Review {
    /// A review of `prompt` with the default system prompt, no tools,
    /// default budgets and strict extraction.
    pub fn new(schemas: Arc<VerdictSchemas>, prompt: impl Into<String>) -> Review {
        Review {
            schemas,
            prompt: prompt.into(),
            system: DEFAULT_REVIEW_SYSTEM.to_string(),
            tools: Arc::new(ToolBox::new()),
            budget: Budget::default(),
            answer: AnswerPolicy {
                mode: ExtractionMode::Strict,
                ..AnswerPolicy::default()
            },
            max_output_tokens: None,
            require_tool_first: false,
            settings: None,
        }
    }

    /// Sets the per-request output-token ceiling.
    pub fn with_max_output_tokens(mut self, max: u32) -> Review {
        self.max_output_tokens = Some(max);
        self
    }

    /// Requires a tool call (reading the code) before the verdict.
    pub fn with_tool_required_first(mut self, required: bool) -> Review {
        self.require_tool_first = required;
        self
    }

    /// Sets the tools.
    pub fn with_tools(mut self, tools: impl Into<Arc<ToolBox>>) -> Review {
        self.tools = tools.into();
        self
    }

    /// Sets the system prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> Review {
        self.system = system.into();
        self
    }

    /// Sets the budgets.
    pub fn with_budget(mut self, budget: Budget) -> Review {
        self.budget = budget;
        self
    }

    /// The backend's request settings, for the config hash
    /// ([`Review::settings`]).
    pub fn with_settings(mut self, settings: Value) -> Review {
        self.settings = Some(settings);
        self
    }

    /// The config hash stored with every verdict of this review.
    pub fn config_hash(&self) -> String {
        let mut config = review_config(
            Some(&self.prompt),
            Some(&self.system),
            &self.schemas,
            &self.tools.specs(),
            Some(&self.budget),
            Some(&self.answer),
        );
        // Only what is set, so the hash of a review without them is the
        // one `review_hash` gives (and stored verdicts keep theirs).
        if let Value::Object(map) = &mut config {
            if let Some(max) = self.max_output_tokens {
                map.insert("max_output_tokens".into(), max.into());
            }
            if self.require_tool_first {
                map.insert("require_tool_first".into(), true.into());
            }
            if let Some(settings) = &self.settings {
                map.insert("settings".into(), settings.clone());
            }
        }
        digest(&config)
    }

    /// The agent that runs this review on `backend` (also the one to ask
    /// plain-text follow-up questions with [`Agent::follow_up`]). Fails if
    /// the envelope cannot be compiled for the backend's schema target.
    pub fn agent(&self, backend: Arc<dyn Backend>) -> Result<Agent, SchemaError> {
        let agent = Agent::new(backend, self.schemas.clone())?
            .with_system(self.system.clone())
            .with_tools(self.tools.clone())
            .with_budget(self.budget)
            .with_answer_policy(self.answer)
            .with_tool_required_first(self.require_tool_first);
        Ok(match self.max_output_tokens {
            Some(max) => agent.with_max_output_tokens(max),
            None => agent,
        })
    }
}

/// Runs `review` on `backend`: the stored verdict (GREEN, RED or
/// ERROR(code)) and the finished run (its conversation takes follow-up
/// questions). Fails only when the envelope cannot be compiled for the
/// backend's target.
pub async fn run_review(
    review: &Review,
    backend: Arc<dyn Backend>,
) -> Result<(StoredVerdict, Run), SchemaError> {
    let name = backend.name().to_string();
    let model = backend.model().to_string();
    let agent = review.agent(backend)?;
    let run = agent.run(&review.prompt).await;
    let stored = StoredVerdict::from_report(&run.report, &name, &model, &review.config_hash());
    Ok((stored, run))
}
