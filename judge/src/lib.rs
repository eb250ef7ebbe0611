//! The tribunal eval judge: run an arena of items against an agent, score
//! each run with mechanical checks, and report PASS / FAIL / ERROR.
//!
//! # Overview
//!
//! - An [`Arena`] is a folder: `dataset.jsonl` (items with checks and an
//!   optional mock script), optional `arena.toml` and `corpus.json`.
//!   [`lint`] lists every problem with file:line; [`Arena::load`] refuses an
//!   arena with any.
//! - A [`RunPlan`] says what an arena runs on (the mock, a
//!   live model, or backends of your own, a [`BackendFactory`]);
//!   [`prepare`](RunPlan::prepare), then
//!   [`start_tools`](PreparedRun::start_tools) (its `[[mcp]]` servers)
//!   give the [`ReadyRun`] that runs every item (× `repeat`)
//!   with bounded concurrency, appending one [`ResultRow`] per finished run
//!   to a JSON Lines file, flushed at once — so an interrupted run resumes
//!   where it stopped. It is the one way to run an arena: `tribunal run`
//!   takes it too.
//! - A [`Report`] scores a set of rows and renders it
//!   ([`ReportFormat`]) as JSON, Markdown, JUnit or a terminal table.
//!   Outcomes: PASS (every check held), FAIL (a check failed), ERROR (the
//!   run ended with an error code; checks skipped). ERROR is never counted
//!   as FAIL.
//!
//! ```
//! use tribunal_judge::{Environment, RunPlan};
//! use tribunal_judge::{Arena, Report, RunOptions, Silent};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("dataset.jsonl"),
//!     r#"{"id": "six", "input": "Six times seven?", "checks": [
//!         {"type": "json_schema", "schema": {"type": "object", "required": ["n"]}},
//!         {"type": "json_path_equals", "path": "n", "value": 42}],
//!        "mock": [{"json": {"n": 42}}]}"#.replace('\n', " "),
//! )?;
//! let arena = Arena::load(dir.path())?;
//! let prepared = RunPlan::mock().prepare(&arena, &Environment::empty())?;
//! prepared.preflight().await?;
//! let ready = prepared.start_tools().await?;
//! let options = RunOptions::new(dir.path().join("results.jsonl")).with_concurrency(8);
//! let result = ready.run(&options, &Silent).await?;
//! let report = Report::from_rows(&arena.name, &result.rows);
//! assert!(report.mock);
//! assert_eq!((report.summary.pass, report.summary.fail, report.summary.error), (1, 0, 0));
//! # Ok(()) }
//! ```
//!
//! # Cargo features
//!
//! - `snapshot` (off by default): the `snapshot` module and the
//!   `assert_arena_snapshot!` macro, which snapshot an arena run inside your
//!   own `cargo test` with insta. Add `features = ["snapshot"]` to the
//!   `tribunal-judge` dev-dependency; without it insta is not built.
#![deny(missing_docs)]
#![warn(unreachable_pub)]
#![forbid(unsafe_code)]

// The flow, one way: vocabulary (`error`, `problem`, `green_red`, `shard`)
// ← `score` (checks, rubric judge, grading; `Scored`, `Outcome`) ← `rows`
// (results, transcripts: scores stored) ← `pricing` ← `arena` (one reader
// per arena.toml table, the dataset, lint) ← `run` (backends, runner,
// batch: runs an item, hands it to `score`) ← `report` (the figures; their
// formats in `report::format`); `verdict` (one review), `gold_check`
// (review items' gold tests run) and `snapshot` on top. `tests/it/module_graph.rs` holds it.
//
// The public API is the names re-exported below, each at the root and
// nowhere else (api/tribunal-judge.txt lists them). The modules are
// private; `internal` is the door of tribunal's own crates (the binary, the
// testkit, the tests) to the rest: hidden, unlisted, unpromised.
mod error;
mod green_red;
mod problem;
mod shard;

mod score;

mod rows;

mod pricing;

mod arena;

mod run;

mod report;

#[cfg(feature = "snapshot")]
pub mod snapshot;
mod verdict;

mod gold_check;

#[doc(hidden)]
pub mod internal;

pub use arena::Arena;
pub use arena::item::{Injection, Item};
pub use arena::lint::{lint, lint_for_mock};
pub use arena::mcp::McpStartError;
pub use error::JudgeError;
pub use green_red::Verdict;
pub use pricing::{Cost, CostSummary, Pricing};
pub use problem::{LintReport, Problem};
pub use report::format::ReportFormat;
pub use report::stats::Interval;
pub use report::summary::Summary;
pub use report::summary::{ItemSummary, PassAtK, RepeatSpread, RepeatSummary};
pub use report::tokens::{Missing, TokenUse};
pub use report::{Report, ReportItem};
pub use rows::Sampling;
pub use rows::results::{
    ConversationRecord, ReadRows, ResultRow, RowOrigin, SimulatorRecord, read_rows,
};
pub use run::backends::{BackendFactory, SharedBackend};
pub use run::progress::BatchRound;
pub use run::progress::{Progress, Silent};
pub use run::{CostStop, JudgeRoute, RunApproval};
pub use run::{
    Environment, JsonlSink, MemorySink, PlanError, PreparedRun, ReadyRun, RowSink, RunMode,
    RunOptions, RunPlan, RunResult,
};
pub use score::JudgeRecord;
pub use score::checks::ItemCheck;
pub use score::checks::{Check, CheckKind, CheckResult, SequenceMode};
pub use score::envelope::VerdictSchemas;
pub use score::{Outcome, Scored};
pub use shard::Shard;
pub use verdict::Reproduction;
pub use verdict::{Review, StoredVerdict, VerdictOutcome, run_review};
