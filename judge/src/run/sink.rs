//! [`RowSink`]: where a run's rows go as runs finish — a JSON Lines
//! results file ([`JsonlSink`]) or memory ([`MemorySink`]), or an
//! embedder's own store.

use crate::error::JudgeError;
use crate::rows::results::{ResultRow, ResultsWriter, rewrite};
use std::path::Path;

/// Takes the rows of a run as runs finish.
///
/// [`append`](RowSink::append) gets the rows of the runs that finished
/// together, once, before the runner waits again: a sink that keeps them
/// durably there loses no row of a run the runner saw finish.
pub trait RowSink: Send {
    /// Keeps `rows` (runs that finished together), in one write.
    fn append(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError>;

    /// Replaces everything kept with `rows`, one per (item, repeat): after
    /// a run retried ERROR rows, whose new rows were appended after the old.
    fn replace_all(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError>;
}

/// Rows kept in memory, in the order they finished.
#[derive(Debug, Default)]
pub struct MemorySink {
    rows: Vec<ResultRow>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// The rows kept.
    pub fn rows(&self) -> &[ResultRow] {
        &self.rows
    }

    /// The rows kept, taken.
    pub fn into_rows(self) -> Vec<ResultRow> {
        self.rows
    }
}

impl RowSink for MemorySink {
    fn append(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        self.rows.extend_from_slice(rows);
        Ok(())
    }

    fn replace_all(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        self.rows = rows.to_vec();
        Ok(())
    }
}

/// Keeps nothing: for a run whose rows are wanted only in its
/// [`RunResult`](super::RunResult) (no results file).
pub(crate) struct Nowhere;

impl RowSink for Nowhere {
    fn append(&mut self, _: &[ResultRow]) -> Result<(), JudgeError> {
        Ok(())
    }

    fn replace_all(&mut self, _: &[ResultRow]) -> Result<(), JudgeError> {
        Ok(())
    }
}

/// A JSON Lines results file: each [`append`](RowSink::append) is one
/// write, flushed ([`ResultsWriter`]); [`replace_all`](RowSink::replace_all)
/// writes a sibling file and renames it over.
#[derive(Debug)]
pub struct JsonlSink {
    writer: ResultsWriter,
}

impl JsonlSink {
    /// Creates (or empties) the results file at `path`.
    pub fn create(path: &Path) -> Result<Self, JudgeError> {
        Ok(JsonlSink {
            writer: ResultsWriter::create(path)?,
        })
    }

    /// Appends to the results file at `path` after its first `good_len`
    /// bytes (a torn last line beyond them is cut off).
    pub fn append_to(path: &Path, good_len: u64) -> Result<Self, JudgeError> {
        Ok(JsonlSink {
            writer: ResultsWriter::append(path, good_len)?,
        })
    }

    /// The results file.
    pub fn path(&self) -> &Path {
        self.writer.path()
    }
}

impl RowSink for JsonlSink {
    fn append(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        self.writer.write_all(rows)
    }

    fn replace_all(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        rewrite(self.writer.path(), rows)
    }
}
