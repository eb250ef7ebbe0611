//! `tribunal lint`: every problem of an arena's files, each with file:line.
//!
//! Linting and loading are one code path ([`crate::Arena::load`] refuses an
//! arena with any problem), so what lint accepts is exactly what runs.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// One problem in an arena's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file, relative to the arena folder (`dataset.jsonl`, `arena.toml`, …).
    pub file: String,
    /// The 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// What is wrong, in one line.
    pub message: String,
}

impl Problem {
    /// A problem at `file:line`.
    pub fn at(file: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Problem {
            file: file.into(),
            line: Some(line),
            message: message.into(),
        }
    }

    /// A problem with a whole file.
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            file: file.into(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The lint result of one arena.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintReport {
    /// The arena's name.
    pub arena: String,
    /// How many well-formed items the dataset holds.
    pub items: usize,
    /// Every problem found, in file order (empty: the arena is clean).
    pub problems: Vec<Problem>,
}

impl LintReport {
    /// Whether there is no problem.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// One `file:line: message` per line.
    pub fn render(&self) -> String {
        self.problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

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
