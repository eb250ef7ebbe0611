//! [`RunPlan`]: what an arena runs on — the mock or a live model, the
//! rubric checks' judge, cassettes, the rerun cache, the base URL, batch
//! mode — and what it changes of the arena as loaded (items, deadline,
//! repeat policy, backend settings), laid over it by one overlay.
//! [`RunPlan::prepare`] turns a plan and a loaded arena into a
//! [`PreparedRun`](super::PreparedRun), the way `tribunal run` does, so
//! that an embedder runs an arena as the CLI does.

use crate::arena::Arena;
use crate::error::create_parent;
use crate::run::backends::{BackendFactory, MockBackends, MockWithJudge, SharedBackend};
use crate::run::batch::BatchSettings;
use crate::run::environment::Environment;
use crate::run::prepared::{PreparedRun, ToolSource};
use crate::run::user_route::WithUser;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::internal::backend::batch::connect_batch;
use tribunal_runtime::internal::backend::{
    BackendError, BackendKind, BackendOptions, BackendSettings, base_url_from_env,
    connect_with_env, is_hosted,
};
use tribunal_runtime::{Backend, OnRepeat};

/// Who judges the arena's `rubric` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JudgeRoute {
    /// `[judge] backend` of arena.toml, else the run's own provider; the
    /// mock judge on a mock run.
    #[default]
    FromArena,
    /// The mock judge (each rubric check's scripted turns): mock runs only.
    Mock,
    /// This provider (with `model` in `[judge]`, or
    /// [`RunPlan::with_judge_model`]). On a mock run: the mock answers are
    /// graded by a live judge, and the cassettes and cache are the judge's
    /// (how a judge is calibrated against `gold_rubric`).
    Live(BackendKind),
}

impl JudgeRoute {
    /// Whether, on a mock run of `arena`, this route grades the mock answers
    /// with a live judge: a [`Live`](JudgeRoute::Live) route and rubric
    /// checks to judge (what a [`PreparedRun`] of a mock plan says; a
    /// caller that has no plan yet asks the route).
    pub fn live_judge_on_mock(self, arena: &Arena) -> bool {
        arena.has_rubric() && matches!(self, JudgeRoute::Live(_))
    }
}

/// The model an arena runs against and where its turns come from.
///
/// ```
/// # use tribunal_judge::RunPlan;
/// # use tribunal_runtime::internal::backend::BackendKind;
/// let plan = RunPlan::live(BackendKind::OpenAiChat, "qwen")
///     .with_base_url(Some("http://127.0.0.1:8080/v1".into()))
///     .with_replay(Some("arenas/qa/cassettes".into()));
/// assert!(!plan.is_mock());
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RunPlan {
    /// The live provider and model; `None`: the mock (or backends of the
    /// caller's own, [`RunPlan::with_backends`]).
    pub model: Option<(BackendKind, String)>,
    /// Backends of the caller's own (a scripted agent, an in-house
    /// gateway), instead of the mock or a connected model.
    own_backends: Option<OwnBackends>,
    /// Who judges rubric checks.
    pub judge: JudgeRoute,
    /// The judge's model, over `model` in `[judge]`.
    pub judge_model: Option<String>,
    /// Record every live request and answer into cassettes in this folder
    /// (`<arena>.jsonl`, `<arena>.judge.jsonl`, `<arena>.tools.jsonl`).
    pub record: Option<PathBuf>,
    /// Serve the answers from the cassettes in this folder.
    pub replay: Option<PathBuf>,
    /// The rerun cache's folder.
    pub cache: Option<PathBuf>,
    /// The model server's API root (default: the provider's variable, else
    /// its own host).
    pub base_url: Option<String>,
    /// The judge's server's API root (default: [`base_url`](Self::base_url)
    /// when the judge is on the model's provider, else the judge provider's
    /// variable, else its own host).
    pub judge_base_url: Option<String>,
    /// The simulated user's provider, over `[user]`'s. On a mock run: the
    /// conversation items' users are a live model on it (their cassettes
    /// and cache are the user's), while the agent plays its script.
    pub user_backend: Option<BackendKind>,
    /// The simulated user's model, over `[user]`'s.
    pub user_model: Option<String>,
    /// The user's server's API root (default: [`base_url`](Self::base_url)
    /// when the user is on the model's provider, else the provider's
    /// variable, else its own host).
    pub user_base_url: Option<String>,
    /// Mock mode: the scripted model waits this long per turn.
    pub mock_latency: Duration,
    /// Only these item ids (all when empty); an id the arena lacks is
    /// [`PlanError::UnknownItem`]. Item ids are not in the config hash: a
    /// smaller run's rows compare and resume with a whole run's.
    pub items: Vec<String>,
    /// Only the first N items (after [`items`](Self::items)), in dataset order.
    pub limit: Option<usize>,
    /// Each run's deadline, over `[budget]`'s.
    pub deadline: Option<Duration>,
    /// The repeated-call policy, over `[budget]`'s.
    pub on_repeat: Option<OnRepeat>,
    /// Backend settings laid over `[backend]`'s
    /// ([`BackendSettings::overlaid`]).
    pub backend: BackendSettings,
    /// Batch mode: the model requests go through the provider's batch API,
    /// polled this often. `None`: one request at a time.
    pub batch_poll: Option<Duration>,
}

/// A plan's backends of the caller's own: shown by their name and model.
#[derive(Clone)]
struct OwnBackends(Arc<dyn BackendFactory>);

impl std::fmt::Debug for OwnBackends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OwnBackends")
            .field(&self.0.name())
            .field(&self.0.model())
            .finish()
    }
}

/// Why a plan's backends cannot be assembled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Rubric checks on a live run, judged by the mock.
    #[error(
        "rubric checks on a live run need a live judge backend; the mock judge plays only in mock mode"
    )]
    NoLiveJudge,
    /// A simulated user with a route of its own but no model.
    #[error(
        "{arena}: the simulated user on its own backend needs a model (`model` in [user] of arena.toml)"
    )]
    NoUserModel {
        /// The arena.
        arena: String,
    },
    /// Rubric checks whose judge has no model.
    #[error(
        "{arena} has rubric checks: name their judge's model (`model` in [judge] of arena.toml)"
    )]
    NoJudgeModel {
        /// The arena.
        arena: String,
    },
    /// A batch API on the mock.
    #[error("a batch run needs a live backend")]
    BatchOnMock,
    /// Backends of the caller's own ([`RunPlan::with_backends`]) with a
    /// model to connect, cassettes, a cache or batch mode, which only
    /// connected backends have.
    #[error(
        "a plan with backends of its own connects nothing: it takes no model, cassettes, cache or batch API"
    )]
    OwnBackends,
    /// [`RunPlan::items`] names an item the arena does not have.
    #[error("the arena has no item {id:?} (its {count} item(s) start {})", first.join(", "))]
    UnknownItem {
        /// The id.
        id: String,
        /// How many items the arena has.
        count: usize,
        /// The first few of their ids.
        first: Vec<String>,
    },
    /// A cassette's folder could not be created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A live backend could not be connected (no key, a bad base URL, a
    /// cassette that does not match).
    #[error(transparent)]
    Backend(#[from] BackendError),
}

impl RunPlan {
    /// The mock: each item's scripted turns.
    pub fn mock() -> Self {
        RunPlan::default()
    }

    /// `model` on the live provider `kind`.
    pub fn live(kind: BackendKind, model: impl Into<String>) -> Self {
        RunPlan {
            model: Some((kind, model.into())),
            ..RunPlan::default()
        }
    }

    /// The arena runs on `backends` (the caller's own), not on the mock or
    /// a connected model; their judge grades rubric checks. Cassettes, the
    /// cache and base URLs are then the caller's business: a plan with
    /// backends of its own and any of them is refused when prepared.
    pub fn with_backends(mut self, backends: Arc<dyn BackendFactory>) -> Self {
        self.own_backends = Some(OwnBackends(backends));
        self
    }

    /// Who judges rubric checks.
    pub fn with_judge(mut self, judge: JudgeRoute) -> Self {
        self.judge = judge;
        self
    }

    /// The judge's model, over `[judge]`'s.
    pub fn with_judge_model(mut self, model: Option<String>) -> Self {
        self.judge_model = model;
        self
    }

    /// Record into cassettes in this folder.
    pub fn with_record(mut self, dir: Option<PathBuf>) -> Self {
        self.record = dir;
        self
    }

    /// Replay the cassettes in this folder.
    pub fn with_replay(mut self, dir: Option<PathBuf>) -> Self {
        self.replay = dir;
        self
    }

    /// The rerun cache's folder.
    pub fn with_cache(mut self, dir: Option<PathBuf>) -> Self {
        self.cache = dir;
        self
    }

    /// The model server's API root.
    pub fn with_base_url(mut self, url: Option<String>) -> Self {
        self.base_url = url;
        self
    }

    /// The judge's server's API root.
    pub fn with_judge_base_url(mut self, url: Option<String>) -> Self {
        self.judge_base_url = url;
        self
    }

    /// The simulated user's provider and model, over `[user]`'s.
    pub fn with_user(mut self, backend: Option<BackendKind>, model: Option<String>) -> Self {
        self.user_backend = backend;
        self.user_model = model;
        self
    }

    /// The user's server's API root.
    pub fn with_user_base_url(mut self, url: Option<String>) -> Self {
        self.user_base_url = url;
        self
    }

    /// The mock's latency per turn.
    pub fn with_mock_latency(mut self, latency: Duration) -> Self {
        self.mock_latency = latency;
        self
    }

    /// Only these item ids.
    pub fn with_items(mut self, ids: Vec<String>) -> Self {
        self.items = ids;
        self
    }

    /// Only the first `n` items.
    pub fn with_limit(mut self, n: Option<usize>) -> Self {
        self.limit = n;
        self
    }

    /// Each run's deadline, over `[budget]`'s.
    pub fn with_deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    /// The repeated-call policy, over `[budget]`'s.
    pub fn with_on_repeat(mut self, policy: Option<OnRepeat>) -> Self {
        self.on_repeat = policy;
        self
    }

    /// Backend settings over `[backend]`'s.
    pub fn with_backend(mut self, settings: BackendSettings) -> Self {
        self.backend = settings;
        self
    }

    /// Batch mode, polled every `poll` (`None`: no batch).
    pub fn with_batch(mut self, poll: Option<Duration>) -> Self {
        self.batch_poll = poll;
        self
    }

    /// Whether the agent's model is the mock.
    pub fn is_mock(&self) -> bool {
        match &self.own_backends {
            Some(OwnBackends(backends)) => backends.is_mock(),
            None => self.model.is_none(),
        }
    }

    /// Everything a run of `loaded` under this plan needs, assembled once:
    /// the arena as the plan's items and settings and its judge route change it (a new
    /// value; `loaded` is not changed), the backends (the mock, the mock
    /// with a live judge, or a live model recording or replaying, with its
    /// judge), the batch API, and where the `[[mcp]]` tools come from.
    /// Keys and base URLs are read from `env`, nowhere else. Creates the
    /// folder of a recording; sends nothing.
    pub fn prepare(&self, loaded: &Arena, env: &Environment) -> Result<PreparedRun, PlanError> {
        let mut arena = self.arena_of(loaded)?;
        self.apply_judge(&mut arena);
        self.apply_user(&mut arena);
        let backends = self.backends(&arena, env)?;
        let backends = self.with_user_route(backends, &arena, env)?;
        let batch = match self.batch_poll {
            Some(poll) => Some(self.batch(&arena, poll, env)?),
            None => None,
        };
        let tools = self.tool_source(&arena.name);
        let live_judge_on_mock = self.live_judge_on_mock(&arena);
        let live_user_on_mock = self.is_mock() && self.user_has_own_route(&arena);
        Ok(PreparedRun::new(
            arena,
            backends,
            batch,
            tools,
            env.clone(),
            (live_judge_on_mock, live_user_on_mock),
        ))
    }

    /// `loaded` with what the plan changes of it laid over (its items,
    /// then `[budget]`'s deadline and repeat policy, then `[backend]`): a
    /// new value, the one overlay of a run's settings on its arena's.
    fn arena_of(&self, loaded: &Arena) -> Result<Arena, PlanError> {
        if let Some(id) = self
            .items
            .iter()
            .find(|id| !loaded.items.iter().any(|i| &i.id == *id))
        {
            return Err(PlanError::UnknownItem {
                id: id.clone(),
                count: loaded.items.len(),
                first: loaded.items.iter().take(5).map(|i| i.id.clone()).collect(),
            });
        }
        let mut arena = loaded.clone();
        arena.select_items(&self.items, self.limit);
        if let Some(deadline) = self.deadline {
            arena.budget.deadline = Some(deadline);
        }
        if let Some(policy) = self.on_repeat {
            arena.budget.on_repeat = policy;
        }
        arena.backend = arena.backend.overlaid(&self.backend);
        Ok(arena)
    }

    /// Lays the plan's judge over `arena`'s `[judge]` (which is part of the
    /// config hash).
    fn apply_judge(&self, arena: &mut Arena) {
        if let JudgeRoute::Live(kind) = self.judge {
            arena.judge.backend = Some(kind);
        }
        if let Some(model) = &self.judge_model {
            arena.judge.model = Some(model.clone());
        }
    }

    /// Lays the plan's user route over `arena`'s `[user]` (which is part
    /// of the config hash).
    fn apply_user(&self, arena: &mut Arena) {
        if let Some(kind) = self.user_backend {
            arena.user.backend = Some(kind);
        }
        if let Some(model) = &self.user_model {
            arena.user.model = Some(model.clone());
        }
    }

    /// Whether the simulated users of `arena` are a live model on a route
    /// of their own: conversation items with `instructions`, and `[user]`
    /// naming a provider or model on a live run, or the plan naming the
    /// user's provider on a mock run (the agent then plays its script).
    fn user_has_own_route(&self, arena: &Arena) -> bool {
        let asked = match self.is_mock() {
            true => self.user_backend.is_some(),
            false => arena.user.has_own_route(),
        };
        arena.has_model_users() && asked && self.own_backends.is_none()
    }

    /// `backends` with the simulated user on its own route when it has one
    /// ([`user_has_own_route`](Self::user_has_own_route)): its provider
    /// (`[user]`, else the run's) and model (`[user]`, else the agent's on
    /// the same provider), recording into and replaying from
    /// `<arena>.user.jsonl`.
    fn with_user_route(
        &self,
        backends: Arc<dyn BackendFactory>,
        arena: &Arena,
        env: &Environment,
    ) -> Result<Arc<dyn BackendFactory>, PlanError> {
        if !self.user_has_own_route(arena) {
            return Ok(backends);
        }
        let agent = self.model.as_ref();
        let kind = arena.user.backend.or(agent.map(|m| m.0));
        let model = match (&arena.user.model, agent) {
            (Some(model), _) => Some(model.clone()),
            (None, Some((k, m))) if Some(*k) == kind => Some(m.clone()),
            (None, _) => None,
        };
        let (Some(kind), Some(model)) = (kind, model) else {
            return Err(PlanError::NoUserModel {
                arena: arena.name.clone(),
            });
        };
        let url = self.side_url(kind, self.user_base_url.as_deref());
        let cassette = format!("{}.user.jsonl", arena.name);
        let user = self.connect(arena, (kind, &model), url, &cassette, env)?;
        let custom = self.is_custom(kind, url, env);
        Ok(Arc::new(WithUser::new(backends, user, custom)))
    }

    /// Whether mock answers are graded by a live judge (a mock run of an
    /// arena with rubric checks and a live [`JudgeRoute`]): the cassettes
    /// and the cache are then the judge's.
    fn live_judge_on_mock(&self, arena: &Arena) -> bool {
        self.is_mock() && self.judge.live_judge_on_mock(arena)
    }

    /// The backends of a run of `arena`: the mock, the mock with a live
    /// judge, or a live model (recording or replaying; with its judge when
    /// the arena has rubric checks). Creates the folder of a recording.
    fn backends(
        &self,
        arena: &Arena,
        env: &Environment,
    ) -> Result<Arc<dyn BackendFactory>, PlanError> {
        if let Some(OwnBackends(backends)) = &self.own_backends {
            if self.model.is_some()
                || self.record.is_some()
                || self.replay.is_some()
                || self.cache.is_some()
                || self.batch_poll.is_some()
            {
                return Err(PlanError::OwnBackends);
            }
            return Ok(backends.clone());
        }
        let mock = MockBackends {
            latency: self.mock_latency,
        };
        let Some((kind, model)) = &self.model else {
            if !self.live_judge_on_mock(arena) {
                return Ok(Arc::new(mock));
            }
            let (judge_kind, judge_model) = self.judge_target(arena)?;
            let judge = self.connect_judge(arena, judge_kind, &judge_model, env)?;
            let custom = self.is_custom(judge_kind, self.judge_url(judge_kind), env);
            return Ok(Arc::new(MockWithJudge::new(mock, judge, custom)));
        };
        // The judge is named before anything connects.
        let judge = match arena.has_rubric() {
            true => Some(self.judge_target(arena)?),
            false => None,
        };
        let cassette = format!("{}.jsonl", arena.name);
        let url = self.base_url.as_deref();
        let backend = self.connect(arena, (*kind, model), url, &cassette, env)?;
        let mut shared = SharedBackend::new(backend)
            .replaying(self.replay.is_some())
            .on_custom_endpoint(self.is_custom(*kind, url, env));
        if let Some((judge_kind, judge_model)) = judge {
            let judge = self.connect_judge(arena, judge_kind, &judge_model, env)?;
            let custom = self.is_custom(judge_kind, self.judge_url(judge_kind), env);
            shared = shared.with_judge(judge, custom);
        }
        Ok(Arc::new(shared))
    }

    /// The provider and model of `arena`'s rubric judge: the plan's route,
    /// else `[judge]`, else the run's provider; the plan's judge model, else
    /// `[judge]`'s.
    fn judge_target(&self, arena: &Arena) -> Result<(BackendKind, String), PlanError> {
        let kind = match self.judge {
            JudgeRoute::Live(kind) => Some(kind),
            JudgeRoute::Mock => None,
            JudgeRoute::FromArena => arena.judge.backend.or(self.model.as_ref().map(|m| m.0)),
        };
        let kind = kind.ok_or(PlanError::NoLiveJudge)?;
        match self.judge_model.as_ref().or(arena.judge.model.as_ref()) {
            Some(model) => Ok((kind, model.clone())),
            None => Err(PlanError::NoJudgeModel {
                arena: arena.name.clone(),
            }),
        }
    }

    /// The judge `kind` / `model`, recording into and replaying from
    /// `<arena>.judge.jsonl` beside the run's cassette.
    fn connect_judge(
        &self,
        arena: &Arena,
        kind: BackendKind,
        model: &str,
        env: &Environment,
    ) -> Result<Arc<dyn Backend>, PlanError> {
        let cassette = format!("{}.judge.jsonl", arena.name);
        self.connect(arena, (kind, model), self.judge_url(kind), &cassette, env)
    }

    /// `kind` / `model` at `url` with `arena`'s request settings, recording
    /// into (its folder created) or replaying from the plan's `cassette`
    /// file, through the plan's cache.
    fn connect(
        &self,
        arena: &Arena,
        (kind, model): (BackendKind, &str),
        url: Option<&str>,
        cassette: &str,
        env: &Environment,
    ) -> Result<Arc<dyn Backend>, PlanError> {
        let options = BackendOptions {
            settings: arena.backend.clone(),
            timeouts: None,
            base_url: url.map(str::to_string),
            record: self.record.as_ref().map(|dir| dir.join(cassette)),
            replay: self.replay.as_ref().map(|dir| dir.join(cassette)),
            cache: self.cache.clone(),
        };
        connect_model(kind, model, &options, env)
    }

    /// The base URL the judge on `kind` is reached at: the judge's own, else
    /// the model's when the judge is on the model's provider; `None`: the
    /// provider's variable, else its own host.
    fn judge_url(&self, kind: BackendKind) -> Option<&str> {
        self.side_url(kind, self.judge_base_url.as_deref())
    }

    /// The base URL a route beside the model's (the judge's, the user's)
    /// on `kind` is reached at: its `own`, else the model's when on the
    /// model's provider; `None`: the provider's variable, else its host.
    fn side_url<'a>(&'a self, kind: BackendKind, own: Option<&'a str>) -> Option<&'a str> {
        let same_provider = self.model.as_ref().is_some_and(|(k, _)| *k == kind);
        match own {
            Some(url) => Some(url),
            None if same_provider => self.base_url.as_deref(),
            None => None,
        }
    }

    /// Whether `kind` at `url` (`None`: its variable, else its own host) is
    /// off the provider's own hosts (never when replaying: no server is
    /// reached).
    fn is_custom(&self, kind: BackendKind, url: Option<&str>, env: &Environment) -> bool {
        let url = match url {
            Some(url) => url.to_string(),
            None => base_url_from_env(kind, &|v| env.var(v)),
        };
        self.replay.is_none() && !is_hosted(kind, &url)
    }

    /// Where the `[[mcp]]` tools of the arena `name` come from: recorded
    /// into or replayed from `<name>.tools.jsonl` beside the cassettes, else
    /// the servers themselves.
    fn tool_source(&self, name: &str) -> ToolSource {
        let file = |dir: &PathBuf| dir.join(format!("{name}.tools.jsonl"));
        match (&self.record, &self.replay) {
            (Some(dir), _) => ToolSource::Record(file(dir)),
            (None, Some(dir)) => ToolSource::Replay(file(dir)),
            (None, None) => ToolSource::Live,
        }
    }

    /// The provider's batch API for the plan's model, with `arena`'s
    /// request settings, polled every `poll`.
    fn batch(
        &self,
        arena: &Arena,
        poll: Duration,
        env: &Environment,
    ) -> Result<BatchSettings, PlanError> {
        let Some((kind, model)) = &self.model else {
            return Err(PlanError::BatchOnMock);
        };
        let options = BackendOptions {
            base_url: self.base_url.clone(),
            ..BackendOptions::from(arena.backend.clone())
        };
        let service = connect_batch(*kind, model, &options, &|k| env.var(k))?;
        Ok(BatchSettings { service, poll })
    }
}

/// Connects `kind` / `model` with `options`, its key and base URL read from
/// `env`: the one way a live backend is assembled, for an arena's run
/// ([`RunPlan::prepare`]) and a single review (`tribunal judge run`).
/// Creates the folder of the cassette `options.record` names.
pub fn connect_model(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
    env: &Environment,
) -> Result<Arc<dyn Backend>, PlanError> {
    if let Some(file) = &options.record {
        create_parent(file, |path, source| PlanError::Io { path, source })?;
    }
    Ok(connect_with_env(kind, model, options, &|k| env.var(k))?)
}
