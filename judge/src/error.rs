//! [`JudgeError`]: the infrastructure failures of the judge (unreadable
//! files, an arena with lint problems, results that cannot be mixed).
//!
//! Model misbehaviour is never an error here: it is an ERROR or FAIL row.

use crate::problem::LintReport;
use std::path::{Path, PathBuf};

/// Why the judge could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The arena has problems; every one is listed with file:line.
    #[error("the arena has {} problem(s):\n{}", .0.problems.len(), .0.render())]
    Lint(LintReport),
    /// A results file holds a line that is not a result row (other than a
    /// torn last line, which is discarded).
    #[error("{}:{line}: not a result row: {message}", path.display())]
    CorruptResults {
        /// The results file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Results written under another configuration would be mixed with this
    /// one (`--resume` after the prompt, schema, tools, budgets, backend or
    /// model changed).
    #[error(
        "{}: results were written with config hash {found}, this run has {expected}; \
         use a new --out file (or drop --resume)",
        path.display()
    )]
    ConfigMismatch {
        /// The results file.
        path: PathBuf,
        /// This run's config hash.
        expected: String,
        /// The hash found in the file.
        found: String,
    },
    /// Files given to `merge` come from different runs (another config
    /// hash: the prompt, schema, tools, budgets, backend or model differ).
    #[error(
        "{}: written with config hash {found}, the files before it with {expected}: \
         they are not shards of one run; merge only the files of one run",
        path.display()
    )]
    NotShardsOfOneRun {
        /// The file of the other run.
        path: PathBuf,
        /// The config hash of the files before it.
        expected: String,
        /// The hash found in this file.
        found: String,
    },
    /// Rows of different arenas were merged.
    #[error("{}: rows of arena {found:?} cannot be merged with arena {expected:?}", path.display())]
    ArenaMismatch {
        /// The results file.
        path: PathBuf,
        /// The first arena seen.
        expected: String,
        /// The other arena.
        found: String,
    },
    /// A fresh run ([`crate::RunMode::Fresh`]) would replace the rows of
    /// another run (another arena or config hash) in its results file;
    /// [`crate::RunMode::Replace`] replaces them.
    #[error(
        "{} holds the results of another run (arena {arena:?}, config hash {config_hash}); refusing to replace them",
        path.display()
    )]
    WouldReplace {
        /// The results file.
        path: PathBuf,
        /// The arena of its rows.
        arena: String,
        /// The config hash of its rows.
        config_hash: String,
    },
    /// The arena's commands need a sandbox (`tools = ["shell"]`) and none
    /// can be made here; no item ran.
    #[error("{0}")]
    Sandbox(tribunal_tools::SandboxError),
    /// A command-line value is invalid (shard spec, repeat count, …).
    #[error("{0}")]
    Usage(String),
}

impl JudgeError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        JudgeError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Creates the folder `file` goes into, when it names one; `error` makes
/// the caller's error of the folder and why (the results file's
/// [`JudgeError::Io`], a plan's `PlanError::Io`).
pub(crate) fn create_parent<E>(
    file: &Path,
    error: impl FnOnce(PathBuf, std::io::Error) -> E,
) -> Result<(), E> {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            std::fs::create_dir_all(dir).map_err(|source| error(dir.to_path_buf(), source))
        }
        _ => Ok(()),
    }
}
