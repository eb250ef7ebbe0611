//! `tribunal lint`: every problem of an arena's files, each with file:line.
//!
//! Linting and loading are one code path ([`crate::Arena::load`] refuses an
//! arena with any problem), so what lint accepts is exactly what runs.

use crate::problem::LintReport;
use std::path::Path;

/// Lints the arena in `dir`: arena.toml, dataset.jsonl, the schema and the
/// corpus. Never fails; an unreadable file is a problem like any other.
pub fn lint(dir: &Path) -> LintReport {
    crate::arena::load_checked(dir).1
}

/// [`lint`], and when the arena is clean, also every item mock mode cannot
/// run ([`crate::Arena::mock_problems`]).
pub fn lint_for_mock(dir: &Path) -> LintReport {
    match crate::arena::load_checked(dir) {
        (Some(arena), mut report) if report.is_clean() => {
            report.problems = arena.mock_problems();
            report
        }
        (_, report) => report,
    }
}
