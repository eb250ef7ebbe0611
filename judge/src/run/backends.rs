//! [`BackendFactory`]: how the runner gets a model for each item. Mock mode
//! builds a [`ScriptedBackend`] per item from its `mock` turns; a live
//! backend is one shared client.

use crate::arena::item::Item;
use crate::score::checks::ItemCheck;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::Backend;
use tribunal_runtime::internal::backend::{BackendError, ScriptStep, ScriptedBackend};
use tribunal_runtime::internal::output::OutputPlan;

/// Supplies the backend each item runs against.
pub trait BackendFactory: Send + Sync {
    /// The backend's name for reports and the config hash (`mock`, `openai-chat`, …).
    fn name(&self) -> &str;
    /// The model name.
    fn model(&self) -> &str;
    /// Whether results prove only the plumbing (a scripted model).
    fn is_mock(&self) -> bool;
    /// Whether the model's turns are replayed from a cassette (rows say so,
    /// and `compare` then gates on any regression). Default: no.
    fn is_replay(&self) -> bool {
        false
    }
    /// Whether the backend is a server at a base URL other than the
    /// provider's own (rows say so; an unpriced model there costs 0).
    /// Default: no.
    fn is_custom_endpoint(&self) -> bool {
        false
    }
    /// How the backend takes final answers (part of the config hash).
    fn output_plan(&self) -> OutputPlan;
    /// The backend for one run of `item`.
    fn backend_for(&self, item: &Item) -> Arc<dyn Backend>;
    /// The backend that judges `check` (a `rubric` check) of `item`;
    /// `None` when there is no judge (the judgement then fails as a
    /// `backend_error`). Default: none.
    fn judge_for(&self, _item: &Item, _check: &ItemCheck) -> Option<Arc<dyn Backend>> {
        None
    }
    /// The judge's backend name and model, when there is a judge.
    fn judge_name(&self) -> Option<(String, String)> {
        None
    }
    /// Whether the judge is a server at a base URL other than the
    /// provider's own (an unpriced judge model there costs 0). Default: no.
    fn judge_on_custom_endpoint(&self) -> bool {
        false
    }
    /// The backend the simulated user of `item`'s conversation runs on when
    /// it has a route of its own (`[user]`, `--user-backend`); `None`: it
    /// rides the agent's backend (a live run) or says its script (the
    /// mock). Default: none.
    fn user_for(&self, _item: &Item) -> Option<Arc<dyn Backend>> {
        None
    }
    /// Whether the user's own route is a server at a base URL other than
    /// the provider's own (an unpriced model there costs 0). Default: no.
    fn user_on_custom_endpoint(&self) -> bool {
        false
    }
    /// Checks, before any run starts, that the live backends (the model's,
    /// the judge's) can be reached and take their keys
    /// ([`Backend::preflight`]): a wrong base URL or key is then one error,
    /// not one per item. Default: nothing to check.
    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

pub use crate::rows::{MOCK_BACKEND, MOCK_MODEL, is_mock};

#[doc(hidden)] // mock mode's factory: RunPlan::mock() builds it; no promise
/// Mock mode: each item's `mock` turns, played by a fresh [`ScriptedBackend`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MockBackends {
    /// Simulated model latency per turn. Default: none.
    pub latency: Duration,
}

impl BackendFactory for MockBackends {
    fn name(&self) -> &str {
        MOCK_BACKEND
    }

    fn model(&self) -> &str {
        MOCK_MODEL
    }

    fn is_mock(&self) -> bool {
        true
    }

    fn output_plan(&self) -> OutputPlan {
        ScriptedBackend::from_turns([]).output_plan()
    }

    fn backend_for(&self, item: &Item) -> Arc<dyn Backend> {
        self.scripted(item.mock.clone())
    }

    /// The check's own `mock` judge turns.
    fn judge_for(&self, _item: &Item, check: &ItemCheck) -> Option<Arc<dyn Backend>> {
        Some(self.scripted(check.judge_mock.clone()))
    }

    fn judge_name(&self) -> Option<(String, String)> {
        Some((MOCK_BACKEND.to_string(), MOCK_MODEL.to_string()))
    }
}

impl MockBackends {
    /// A scripted model playing `steps` (none: an empty script, whose
    /// first request fails as a `backend_error`).
    fn scripted(&self, steps: Option<Arc<[ScriptStep]>>) -> Arc<dyn Backend> {
        let steps = steps.unwrap_or_else(|| Arc::new([]));
        Arc::new(
            ScriptedBackend::shared(steps)
                .with_model(MOCK_MODEL)
                .with_latency(self.latency)
                .without_request_log(),
        )
    }
}

#[doc(hidden)] // mock mode's factory: RunPlan builds it; no promise
/// Mock answers judged by a live judge: each item's `mock` turns play the
/// agent (fixed answers) and `judge` grades them — how a rubric judge is
/// calibrated against human labels of known answers.
#[derive(Clone)]
pub struct MockWithJudge {
    mock: MockBackends,
    judge: Arc<dyn Backend>,
    custom_endpoint: bool,
}

impl MockWithJudge {
    /// Plays `mock` and judges with `judge`, reached at a custom endpoint
    /// when `custom_endpoint`.
    pub fn new(mock: MockBackends, judge: Arc<dyn Backend>, custom_endpoint: bool) -> Self {
        MockWithJudge {
            mock,
            judge,
            custom_endpoint,
        }
    }
}

impl std::fmt::Debug for MockWithJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MockWithJudge({} / {})",
            self.judge.name(),
            self.judge.model()
        )
    }
}

impl BackendFactory for MockWithJudge {
    fn name(&self) -> &str {
        self.mock.name()
    }

    fn model(&self) -> &str {
        self.mock.model()
    }

    fn is_mock(&self) -> bool {
        true
    }

    fn output_plan(&self) -> OutputPlan {
        self.mock.output_plan()
    }

    fn backend_for(&self, item: &Item) -> Arc<dyn Backend> {
        self.mock.backend_for(item)
    }

    fn judge_for(&self, _item: &Item, _check: &ItemCheck) -> Option<Arc<dyn Backend>> {
        Some(self.judge.clone())
    }

    fn judge_name(&self) -> Option<(String, String)> {
        Some((
            self.judge.name().to_string(),
            self.judge.model().to_string(),
        ))
    }

    fn judge_on_custom_endpoint(&self) -> bool {
        self.custom_endpoint
    }

    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        self.judge.preflight()
    }
}

/// One backend shared by every run (a live provider client).
#[derive(Clone)]
pub struct SharedBackend {
    backend: Arc<dyn Backend>,
    name: String,
    model: String,
    replay: bool,
    custom_endpoint: bool,
    judge: Option<Arc<dyn Backend>>,
    judge_custom_endpoint: bool,
}

impl SharedBackend {
    /// Shares `backend` across all runs.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        SharedBackend {
            name: backend.name().to_string(),
            model: backend.model().to_string(),
            backend,
            replay: false,
            custom_endpoint: false,
            judge: None,
            judge_custom_endpoint: false,
        }
    }

    /// Judges `rubric` checks with `judge` (one shared client), reached at
    /// a custom endpoint when `custom_endpoint`.
    pub fn with_judge(mut self, judge: Arc<dyn Backend>, custom_endpoint: bool) -> Self {
        self.judge = Some(judge);
        self.judge_custom_endpoint = custom_endpoint;
        self
    }

    /// Marks the shared backend as reached at a base URL other than the
    /// provider's own (`true`) or not.
    pub fn on_custom_endpoint(mut self, custom: bool) -> Self {
        self.custom_endpoint = custom;
        self
    }

    /// Marks the shared backend as a cassette replay (`true`) or not.
    pub fn replaying(mut self, replay: bool) -> Self {
        self.replay = replay;
        self
    }
}

impl std::fmt::Debug for SharedBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedBackend({} / {})", self.name, self.model)
    }
}

impl BackendFactory for SharedBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn is_mock(&self) -> bool {
        false
    }

    fn is_replay(&self) -> bool {
        self.replay
    }

    fn is_custom_endpoint(&self) -> bool {
        self.custom_endpoint
    }

    fn output_plan(&self) -> OutputPlan {
        self.backend.output_plan()
    }

    fn backend_for(&self, _item: &Item) -> Arc<dyn Backend> {
        self.backend.clone()
    }

    fn judge_for(&self, _item: &Item, _check: &ItemCheck) -> Option<Arc<dyn Backend>> {
        self.judge.clone()
    }

    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        Box::pin(async move {
            self.backend.preflight().await?;
            match &self.judge {
                Some(judge) => judge.preflight().await,
                None => Ok(()),
            }
        })
    }

    fn judge_name(&self) -> Option<(String, String)> {
        self.judge
            .as_ref()
            .map(|j| (j.name().to_string(), j.model().to_string()))
    }

    fn judge_on_custom_endpoint(&self) -> bool {
        self.judge_custom_endpoint
    }
}
