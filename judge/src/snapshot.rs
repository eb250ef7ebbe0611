//! Snapshot regression for users: run an arena inside `cargo test` — on the
//! mock backend or from a replay cassette — and snapshot the scored report
//! and the stored verdicts with insta, so a changed verdict fails CI.
//!
//! Needs the crate's `snapshot` feature (`features = ["snapshot"]` on the
//! `tribunal-judge` dev-dependency), which brings insta in.
//!
//! ```no_run
//! #[test]
//! fn code_review_verdicts() {
//!     // Runs every item's mock script and compares with
//!     // `snapshots/<test file>__code_review_verdicts.snap`.
//!     tribunal_judge::assert_arena_snapshot!("arenas/code_review");
//! }
//! ```
//!
//! The snapshot value is `{"report": …, "verdicts": {…}}`: the JSON report
//! (see [`Report`]) and, for a verdict arena, the stored verdict of every
//! item keyed `<id>#<repeat>`. Volatile values are redacted — durations
//! (`wall_ms`, `duration_ms`) become `"[ms]"` and config hashes `"[hash]"`
//! (they change with any tool description) — and object keys are sorted at
//! every level, so the snapshot changes only when an outcome, a check, an
//! answer, a verdict, a tool call or the usage changes.

use crate::arena::Arena;
use crate::error::JudgeError;
use crate::report::Report;
use crate::run::backends::SharedBackend;
use crate::run::hash::canonical;
use crate::run::progress::Silent;
use crate::run::{Environment, RunOptions, RunPlan};
use crate::verdict::StoredVerdict;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tribunal_runtime::internal::backend::Replay;

#[doc(hidden)]
pub use insta as _insta;

/// Where a snapshot run gets its model answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSource {
    /// Each item's `mock` script, played by a scripted model.
    Mock,
    /// A cassette recorded from a live run (`tribunal run --record`); no key
    /// or network is needed.
    Replay(PathBuf),
}

/// The value written for a redacted duration.
pub const REDACTED_MS: &str = "[ms]";
/// The value written for a redacted config hash.
pub const REDACTED_HASH: &str = "[hash]";

/// Keys whose values are durations or timestamps.
const DURATION_KEYS: [&str; 4] = ["wall_ms", "duration_ms", "elapsed_ms", "finished_at_ms"];

/// Runs the arena in `dir` from `source` and returns its snapshot value
/// (redacted, keys sorted), the way `tribunal run` runs it
/// ([`RunPlan::prepare`], the mock checks, its `[[mcp]]` servers started
/// with this process's variables). Fails when the arena does not load (lint
/// problems), an item has no mock script to play, the cassette cannot be
/// read or a server does not start. The rows stay in memory: no results
/// file is written.
pub async fn arena_snapshot(dir: &Path, source: &SnapshotSource) -> Result<Value, JudgeError> {
    let usage = |e: &dyn std::fmt::Display| JudgeError::Usage(e.to_string());
    let arena = Arena::load(dir)?;
    let plan = match source {
        SnapshotSource::Mock => RunPlan::mock(),
        SnapshotSource::Replay(cassette) => {
            let replay = Replay::from_file(cassette).map_err(|e| usage(&e))?;
            RunPlan::mock().with_backends(Arc::new(
                SharedBackend::new(Arc::new(replay)).replaying(true),
            ))
        }
    };
    let prepared = plan
        .prepare(&arena, &Environment::of_process())
        .map_err(|e| usage(&e))?;
    if let Some(problem) = prepared.mock_problems().first() {
        return Err(JudgeError::Usage(format!(
            "{}: {problem} (the snapshot plays each item's mock script)",
            dir.display()
        )));
    }
    prepared.preflight().await.map_err(|e| usage(&e))?;
    let ready = prepared.start_tools().await.map_err(|e| usage(&e))?;
    let options = RunOptions::in_memory().with_concurrency(4).with_pricing(
        crate::pricing::Pricing::builtin()
            .clone()
            .overlaid(&arena.pricing),
    );
    let rows = ready.run(&options, &Silent).await?.rows;
    let report = Report::from_rows(&arena.name, &rows);
    let report = serde_json::to_value(&report).map_err(|e| JudgeError::Usage(e.to_string()))?;
    let mut verdicts = Map::new();
    if arena.verdict.is_some() {
        for row in &rows {
            let stored = serde_json::to_value(StoredVerdict::from_row(row))
                .map_err(|e| JudgeError::Usage(e.to_string()))?;
            verdicts.insert(format!("{}#{}", row.id, row.repeat), stored);
        }
    }
    Ok(redact(&json!({ "report": report, "verdicts": verdicts })))
}

/// [`arena_snapshot`] on a fresh current-thread tokio runtime, for plain
/// `#[test]` functions.
pub fn arena_snapshot_blocking(dir: &Path, source: &SnapshotSource) -> Result<Value, JudgeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| JudgeError::Usage(format!("cannot start a tokio runtime: {e}")))?;
    runtime.block_on(arena_snapshot(dir, source))
}

/// `value` with durations and config hashes redacted and object keys
/// sorted at every level.
pub fn redact(value: &Value) -> Value {
    let sorted: Value = serde_json::from_str(&canonical(value)).unwrap_or_else(|_| value.clone());
    redact_in_place(sorted)
}

fn redact_in_place(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let v = if DURATION_KEYS.contains(&k.as_str()) && v.is_number() {
                        Value::String(REDACTED_MS.to_string())
                    } else if k == "config_hash" && v.is_string() {
                        Value::String(REDACTED_HASH.to_string())
                    } else {
                        redact_in_place(v)
                    };
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(redact_in_place).collect()),
        other => other,
    }
}

/// Runs an arena in mock mode (or from a cassette) and asserts its snapshot
/// with `insta::assert_json_snapshot!`.
///
/// - `assert_arena_snapshot!("arenas/code_review")`: mock mode, snapshot
///   named after the test function.
/// - `assert_arena_snapshot!("name", "arenas/code_review")`: a named snapshot.
/// - `assert_arena_snapshot!("name", "arenas/code_review", replay = "cassettes/cr.jsonl")`:
///   answers from a recorded cassette.
///
/// Relative paths are resolved from the current directory, which `cargo
/// test` sets to the package root. Panics (failing the test) when the arena
/// cannot be run or the snapshot differs.
#[macro_export]
macro_rules! assert_arena_snapshot {
    ($dir:expr) => {{
        let value = $crate::snapshot::arena_snapshot_blocking(
            ::std::path::Path::new($dir),
            &$crate::snapshot::SnapshotSource::Mock,
        )
        .unwrap_or_else(|e| panic!("cannot run the arena {}: {e}", $dir));
        $crate::snapshot::_insta::assert_json_snapshot!(value);
    }};
    ($name:expr, $dir:expr) => {{
        let value = $crate::snapshot::arena_snapshot_blocking(
            ::std::path::Path::new($dir),
            &$crate::snapshot::SnapshotSource::Mock,
        )
        .unwrap_or_else(|e| panic!("cannot run the arena {}: {e}", $dir));
        $crate::snapshot::_insta::assert_json_snapshot!($name, value);
    }};
    ($name:expr, $dir:expr, replay = $cassette:expr) => {{
        let value = $crate::snapshot::arena_snapshot_blocking(
            ::std::path::Path::new($dir),
            &$crate::snapshot::SnapshotSource::Replay(::std::path::PathBuf::from($cassette)),
        )
        .unwrap_or_else(|e| panic!("cannot run the arena {}: {e}", $dir));
        $crate::snapshot::_insta::assert_json_snapshot!($name, value);
    }};
}
