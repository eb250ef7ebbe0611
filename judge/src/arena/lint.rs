//! `tribunal lint`: every problem of an arena's files, each with
//! file:line:column.
//!
//! Linting and loading are one code path ([`crate::Arena::load`] refuses an
//! arena with any problem), so what lint accepts is exactly what runs. Lint
//! adds what a run does not refuse but would only show as a FAIL: mock
//! scripts whose answers or tool calls break their schemas
//! ([`super::mock_lint`]).

use crate::problem::LintReport;
use std::path::Path;

/// Lints the arena in `dir`: arena.toml, dataset.jsonl, the schemas, the
/// corpus and the mock scripts. Never fails; an unreadable file is a
/// problem like any other.
pub fn lint(dir: &Path) -> LintReport {
    let (arena, mut report) = crate::arena::load_checked(dir);
    if let Some(arena) = arena {
        add_sorted(&mut report, super::mock_lint::problems(&arena));
    }
    report
}

/// [`lint`], and when the arena is clean, also every item mock mode cannot
/// run ([`crate::Arena::mock_problems`]).
pub fn lint_for_mock(dir: &Path) -> LintReport {
    let (arena, mut report) = crate::arena::load_checked(dir);
    let Some(arena) = arena else {
        return report;
    };
    add_sorted(&mut report, super::mock_lint::problems(&arena));
    if report.is_clean() {
        report.problems = arena.mock_problems();
    }
    report
}

/// Adds `more` to the report's problems, in file order.
fn add_sorted(report: &mut LintReport, more: Vec<crate::problem::Problem>) {
    if more.is_empty() {
        return;
    }
    report.problems.extend(more);
    super::sort_problems(&mut report.problems);
}
