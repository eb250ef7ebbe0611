//! The rows a run finds in its results file before it starts: kept by
//! [`RunMode::Resume`] and [`RunMode::RetryErrors`], refused when they are
//! another run's, and never emptied by a fresh run without being asked.

use super::options::{RunMode, RunOptions};
use crate::error::JudgeError;
use crate::rows::results::{ResultRow, read_rows};
use std::path::Path;

/// What the results file held before the run, as the run keeps it.
#[derive(Debug, Default)]
pub(super) struct Prior {
    /// The rows kept (none for a fresh run).
    pub(super) rows: Vec<ResultRow>,
    /// The bytes of the file up to its last complete row.
    pub(super) good_len: u64,
    /// Whether a torn last line was found (and will be cut off).
    pub(super) torn: bool,
}

/// The rows of `options.out` a run of `arena` under `hash` keeps: every
/// complete row when the mode keeps rows (refused when one is of another
/// arena or config hash); none otherwise, after checking that a fresh run
/// would not empty another run's file ([`JudgeError::WouldReplace`]).
pub(super) fn read_prior(
    out: Option<&Path>,
    mode: RunMode,
    arena: &str,
    hash: &str,
) -> Result<Prior, JudgeError> {
    let Some(out) = out.filter(|o| o.exists()) else {
        return Ok(Prior::default());
    };
    if !mode.keeps_rows() {
        if mode == RunMode::Fresh {
            refuse_other_runs(out, arena, hash)?;
        }
        return Ok(Prior::default());
    }
    let read = read_rows(out)?;
    if let Some(row) = other_run(&read.rows, arena, hash) {
        return Err(if row.config_hash != hash {
            JudgeError::ConfigMismatch {
                path: out.to_path_buf(),
                expected: hash.to_string(),
                found: row.config_hash.clone(),
            }
        } else {
            JudgeError::ArenaMismatch {
                path: out.to_path_buf(),
                expected: arena.to_string(),
                found: row.arena.clone(),
            }
        });
    }
    Ok(Prior {
        rows: read.rows,
        good_len: read.good_len,
        torn: read.torn,
    })
}

/// The results file of a run: `options.out`, refused when the run needs
/// one (it keeps earlier rows, or it is a batch run whose journal is kept
/// beside it) and has none.
pub(super) fn results_file(options: &RunOptions) -> Result<Option<&Path>, JudgeError> {
    match (&options.out, options.mode.keeps_rows(), &options.batch) {
        (Some(out), ..) => Ok(Some(out.as_path())),
        (None, true, _) => Err(JudgeError::Usage(
            "a run that keeps earlier rows needs a results file to read them from".into(),
        )),
        (None, _, Some(_)) => Err(JudgeError::Usage(BATCH_NEEDS_A_FILE.into())),
        (None, false, None) => Ok(None),
    }
}

pub(super) const BATCH_NEEDS_A_FILE: &str =
    "a batch run needs a results file: its journal is kept beside it";

/// The first of `rows` written by another run: another arena or config hash.
fn other_run<'a>(rows: &'a [ResultRow], arena: &str, hash: &str) -> Option<&'a ResultRow> {
    rows.iter()
        .find(|r| r.arena != arena || r.config_hash != hash)
}

/// [`JudgeError::WouldReplace`] when the results file at `path` holds a
/// row of another arena or config hash: a fresh run never empties another
/// run's results without being asked to. A file that is not results at all
/// is refused the same way (its read error).
fn refuse_other_runs(path: &Path, arena: &str, hash: &str) -> Result<(), JudgeError> {
    let read = read_rows(path)?;
    match other_run(&read.rows, arena, hash) {
        Some(other) => Err(JudgeError::WouldReplace {
            path: path.to_path_buf(),
            arena: other.arena.clone(),
            config_hash: other.config_hash.clone(),
        }),
        None => Ok(()),
    }
}
