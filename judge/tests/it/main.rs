//! Integration tests of `tribunal-judge`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod approval_arena;
mod calibration;
mod compare;
mod compare_comment;
mod conversations;
mod fix_the_bug;
mod html;
mod html_browser;
mod html_fixtures;
mod injection;
mod inline_files;
mod leaderboard;
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
mod tokens;
mod verdict;
mod verdict_arena;
