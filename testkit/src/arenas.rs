//! Helpers shared by the judge tests: arena folders on disk, mock runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_judge::{Arena, MockBackends, RunOptions, RunResult, Silent, run_arena};

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
    run_arena(
        Arc::new(arena.clone()),
        Arc::new(MockBackends::default()),
        options,
        &Silent,
    )
    .await
}

/// A one-line item with a mock answer `answer` and checks `checks` (JSON text).
pub fn item(id: &str, checks: &str, mock: &str) -> String {
    format!(r#"{{"id": "{id}", "input": "question {id}", "checks": {checks}, "mock": {mock}}}"#)
}
