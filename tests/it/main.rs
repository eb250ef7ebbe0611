//! Integration tests of the `tribunal` package: the facade and the binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

/// The path of the built `tribunal` binary.
pub(crate) fn tribunal_bin() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_BIN_EXE_tribunal"))
}

/// `tribunal ARGS` in `cwd`, in a clean environment
/// ([`tribunal_testkit::launch::command`]).
pub(crate) fn tribunal_command<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &std::path::Path,
) -> std::process::Command {
    tribunal_testkit::launch::command(tribunal_bin(), args, cwd)
}

/// Runs `tribunal ARGS` in `cwd` to its end.
pub(crate) fn tribunal<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &std::path::Path,
) -> std::process::Output {
    tribunal_command(args, cwd).output().unwrap()
}

/// Runs `tribunal ARGS` in the package's folder (arguments name their
/// files absolutely).
pub(crate) fn tribunal_here<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    tribunal(args, std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
}

pub(crate) use tribunal_testkit::json::{json_lines, without_timings};

mod action_gate;
mod checks_digest;
mod cli_batch;
mod cli_compare_inputs;
mod cli_import;
mod cli_init;
mod cli_judge;
mod cli_leaderboard;
mod cli_lint;
mod cli_lint_run;
mod cli_mcp;
mod cli_replay;
mod cli_report;
mod cli_review;
mod cli_run;
mod cli_sandbox;
mod cli_schema;
mod cli_search;
mod cli_shape;
mod cli_shards;
mod cli_show;
mod cli_user_route;
mod closed_pipe;
mod conversation_rubric;
mod docs;
mod example;
mod leniency;
mod live_arena;
mod manifest;
mod module_graph;
mod prompt_cache;
mod public_api;
mod results_files;
mod sampling;
mod secrets;
mod stand_in;
mod text_answers;
mod tool_framing;
mod wrong_answers;
