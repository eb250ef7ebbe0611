//! Integration tests of `tribunal-judge`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

/// Points insta at the workspace's `snapshots/judge/` folder for the rest of
/// the enclosing scope.
#[allow(unused_macros)]
macro_rules! bind_snapshots {
    () => {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/judge"));
        settings.set_prepend_module_to_snapshot(false);
        let _snapshot_guard = settings.bind_to_scope();
    };
}

mod approval_arena;
mod calibration;
mod compare;
mod compare_comment;
mod html;
mod html_browser;
mod html_fixtures;
mod injection;
mod lint;
mod live_cassettes;
mod mcp_lint;
mod pricing;
mod results_file;
mod rubric;
mod run_plan;
mod runner;
mod stats;
mod structured_output;
mod summary_stats;
mod support;
mod tokens;
mod verdict;
mod verdict_arena;
