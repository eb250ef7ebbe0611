//! Helpers shared by the judge tests: arena folders on disk, mock runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_judge::internal::run::backends::MockBackends;
use tribunal_judge::{
    Arena, BackendFactory, Environment, JudgeError, ReadyRun, RowSink, RunOptions, RunPlan,
    RunResult, Silent,
};

/// The repository's `arenas/` folder.
pub fn arenas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas")
}

/// The structured_output arena.
pub fn structured_output() -> Arena {
    Arena::load(&arenas_dir().join("structured_output")).unwrap()
}

/// A temporary arena folder holding `files` (name, content).
pub fn arena_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    dir
}

/// Options writing to `out`, one repeat, no shard, fresh file.
pub fn options(out: &Path) -> RunOptions {
    RunOptions::new(out).with_concurrency(8)
}

/// Runs `arena` in mock mode.
pub async fn mock_run(arena: &Arena, options: &RunOptions) -> RunResult {
    try_mock_run(arena, options).await.unwrap()
}

/// [`mock_run`], for a run that may be refused.
pub async fn try_mock_run(
    arena: &Arena,
    options: &RunOptions,
) -> Result<RunResult, tribunal_judge::JudgeError> {
    run_on(arena, Arc::new(MockBackends::default()), options).await
}

/// `arena` ready to run on `backends`, the way every run goes
/// ([`RunPlan::with_backends`], prepared, its tools started).
pub async fn ready_on(
    arena: &Arena,
    backends: Arc<dyn BackendFactory>,
) -> Result<ReadyRun, JudgeError> {
    let usage = |e: &dyn std::fmt::Display| JudgeError::Usage(e.to_string());
    let prepared = RunPlan::mock()
        .with_backends(backends)
        .prepare(arena, &Environment::empty())
        .map_err(|e| usage(&e))?;
    prepared.start_tools().await.map_err(|e| usage(&e))
}

/// Runs `arena` on `backends` with `options`.
pub async fn run_on(
    arena: &Arena,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
) -> Result<RunResult, JudgeError> {
    ready_on(arena, backends).await?.run(options, &Silent).await
}

/// [`run_on`] with the rows going to `sink`.
pub async fn run_on_into(
    arena: &Arena,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
    sink: &mut dyn RowSink,
) -> Result<RunResult, JudgeError> {
    let ready = ready_on(arena, backends).await?;
    ready.run_into(options, &Silent, sink).await
}

/// A one-line item with a mock answer `answer` and checks `checks` (JSON text).
pub fn item(id: &str, checks: &str, mock: &str) -> String {
    format!(r#"{{"id": "{id}", "input": "question {id}", "checks": {checks}, "mock": {mock}}}"#)
}
