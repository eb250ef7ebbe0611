//! [`PreparedRun`]: one run of an arena, assembled once by
//! [`RunPlan::prepare`](super::RunPlan::prepare) — the effective arena,
//! its backends, batch API and tool source — then checked, its tools
//! started, and run, in an order the types keep: only a [`ReadyRun`] runs.

use crate::arena::Arena;
use crate::arena::mcp::{McpCassette, McpStartError, start_servers};
use crate::error::JudgeError;
use crate::problem::Problem;
use crate::run::backends::BackendFactory;
use crate::run::batch::BatchSettings;
use crate::run::environment::Environment;
use crate::run::progress::Progress;
use crate::run::sink::RowSink;
use crate::run::{RunOptions, RunResult, run_arena, run_arena_into};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use tribunal_runtime::internal::backend::BackendError;

/// Where an arena's `[[mcp]]` tools come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolSource {
    /// The servers, unrecorded.
    Live,
    /// The servers, recorded into this tool cassette.
    Record(PathBuf),
    /// This tool cassette; no server starts.
    Replay(PathBuf),
}

/// A run of an arena with everything assembled and nothing sent yet.
///
/// ```
/// # use tribunal_judge::{Environment, RunPlan};
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # std::fs::write(dir.path().join("dataset.jsonl"),
/// #     r#"{"id": "a", "input": "?", "checks": [{"type": "json_schema", "schema": {}}], "mock": [{"json": {}}]}"#)?;
/// let loaded = tribunal_judge::Arena::load(dir.path())?;
/// let prepared = RunPlan::mock().prepare(&loaded, &Environment::empty())?;
/// prepared.preflight().await?; // a live server is asked GET /models first
/// let ready = prepared.start_tools().await?; // the arena's [[mcp]] servers
/// let options = tribunal_judge::RunOptions::in_memory();
/// let hash = ready.config_hash(&options)?; // what the rows will carry
/// let result = ready.run(&options, &tribunal_judge::Silent).await?;
/// assert_eq!(result.rows.len(), 1);
/// assert_eq!(result.config_hash, hash);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PreparedRun {
    arena: Arena,
    backends: Arc<dyn BackendFactory>,
    batch: Option<BatchSettings>,
    tools: ToolSource,
    env: Environment,
    live_judge_on_mock: bool,
    live_user_on_mock: bool,
}

impl std::fmt::Debug for PreparedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedRun")
            .field("arena", &self.arena.name)
            .field("backend", &self.backends.name())
            .field("model", &self.backends.model())
            .field("batch", &self.batch.is_some())
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl PreparedRun {
    pub(crate) fn new(
        arena: Arena,
        backends: Arc<dyn BackendFactory>,
        batch: Option<BatchSettings>,
        tools: ToolSource,
        env: Environment,
        (live_judge_on_mock, live_user_on_mock): (bool, bool),
    ) -> Self {
        PreparedRun {
            arena,
            backends,
            batch,
            tools,
            env,
            live_judge_on_mock,
            live_user_on_mock,
        }
    }

    /// The arena as this run runs it: the items selected, the overrides and
    /// the judge route laid over the loaded one.
    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The backends the run's items (and its rubric judge) run on.
    pub fn backends(&self) -> &Arc<dyn BackendFactory> {
        &self.backends
    }

    /// Whether the agent's model is the mock.
    pub fn is_mock(&self) -> bool {
        self.backends.is_mock()
    }

    /// The problems that keep the arena's items from running on the mock
    /// (none on a live run): items without a mock script, or — when mock
    /// answers are graded by a live judge — without the agent's part; the
    /// users' scripts are not needed when a live model plays the users.
    pub fn mock_problems(&self) -> Vec<Problem> {
        match self.is_mock() {
            false => Vec::new(),
            true => self
                .arena
                .problems_in_mock(!self.live_judge_on_mock, !self.live_user_on_mock),
        }
    }

    /// Asks each live backend whether it is there and takes the key
    /// (`GET /models`, no tokens); the mock and a replay pass at once.
    pub async fn preflight(&self) -> Result<(), BackendError> {
        self.backends.preflight().await
    }

    /// Starts the arena's `[[mcp]]` tool servers on the current runtime
    /// (their variables from the plan's [`Environment`]), recording their
    /// calls or replaying them (no server starts); the servers stop when
    /// the [`ReadyRun`] is dropped. An arena without `[[mcp]]` starts nothing.
    pub async fn start_tools(self) -> Result<ReadyRun, McpStartError> {
        let env = |name: &str| self.env.var_os(name);
        let cassette = match &self.tools {
            ToolSource::Live => McpCassette::Live,
            ToolSource::Record(path) => McpCassette::Record(path),
            ToolSource::Replay(path) => McpCassette::Replay(path),
        };
        let arena = start_servers(self.arena.clone(), &env, cassette).await?;
        Ok(ReadyRun {
            arena: Arc::new(arena),
            backends: self.backends,
            batch: self.batch,
        })
    }
}

/// A [`PreparedRun`] with its tools started: what runs.
#[derive(Clone)]
pub struct ReadyRun {
    arena: Arc<Arena>,
    backends: Arc<dyn BackendFactory>,
    batch: Option<BatchSettings>,
}

impl std::fmt::Debug for ReadyRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadyRun")
            .field("arena", &self.arena.name)
            .field("backend", &self.backends.name())
            .field("model", &self.backends.model())
            .field("batch", &self.batch.is_some())
            .finish()
    }
}

impl ReadyRun {
    /// The arena, with its `[[mcp]]` tools.
    pub fn arena(&self) -> &Arc<Arena> {
        &self.arena
    }

    /// The config hash the rows of a run with `options` carry (what
    /// `--resume` matches a results file by): the arena with its tools,
    /// the backends, batch mode, and the budget price and approval policy
    /// when `options` set them. Errors as the run would refuse `options`.
    pub fn config_hash(&self, options: &RunOptions) -> Result<String, JudgeError> {
        let options = self.with_batch(options);
        Ok(super::terms::terms(&self.arena, self.backends.as_ref(), &options)?.hash)
    }

    /// `options` in this run's batch mode: the plan's batch API (a copy
    /// only then).
    fn with_batch<'o>(&self, options: &'o RunOptions) -> Cow<'o, RunOptions> {
        match &self.batch {
            Some(batch) => Cow::Owned(options.clone().with_batch(Some(batch.clone()))),
            None => Cow::Borrowed(options),
        }
    }

    /// Runs every item with `options`; in batch mode through the plan's
    /// batch API.
    pub async fn run(
        &self,
        options: &RunOptions,
        progress: &dyn Progress,
    ) -> Result<RunResult, JudgeError> {
        let options = self.with_batch(options);
        run_arena(
            self.arena.clone(),
            self.backends.clone(),
            &options,
            progress,
        )
        .await
    }

    /// [`run`](Self::run) with the rows going to `sink` as runs finish (an
    /// embedder's own store, a [`MemorySink`](crate::MemorySink)).
    /// `options.out` is still where rows kept from earlier runs are read
    /// ([`RunMode::Resume`](crate::RunMode::Resume)) and where a batch run
    /// keeps its journal; the sink should hold those same rows.
    pub async fn run_into(
        &self,
        options: &RunOptions,
        progress: &dyn Progress,
        sink: &mut dyn RowSink,
    ) -> Result<RunResult, JudgeError> {
        let options = self.with_batch(options);
        run_arena_into(
            self.arena.clone(),
            self.backends.clone(),
            &options,
            progress,
            sink,
        )
        .await
    }
}
