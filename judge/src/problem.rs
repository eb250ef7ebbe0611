//! [`Problem`] and [`LintReport`]: what is wrong with an arena's files, each
//! at its file, line and (where known) column. The vocabulary every part that reads an arena
//! (`arena.toml` tables, tools, the review arena of `judge submit`) reports
//! in; [`crate::arena::lint`] is the command that collects them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One problem in an arena's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file, relative to the arena folder (`dataset.jsonl`, `arena.toml`, …).
    pub file: String,
    /// The 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// The 1-based column (in characters) on `line`, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong, in one line.
    pub message: String,
}

impl Problem {
    /// A problem at `file:line`.
    pub fn at(file: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Problem {
            file: file.into(),
            line: Some(line),
            column: None,
            message: message.into(),
        }
    }

    /// A problem at `file:line:column`.
    pub fn at_column(
        file: impl Into<String>,
        (line, column): (usize, usize),
        message: impl Into<String>,
    ) -> Self {
        Problem {
            column: Some(column),
            ..Problem::at(file, line, message)
        }
    }

    /// A problem with a whole file.
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            file: file.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", self.file, self.message)
            }
            (Some(line), None) => write!(f, "{}:{line}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
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

    /// One `file:line:column: message` per line.
    pub fn render(&self) -> String {
        self.problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
