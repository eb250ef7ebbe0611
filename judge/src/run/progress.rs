//! [`Progress`]: what the runner reports while items finish. The terminal
//! bar and per-item lines of `tribunal run` are the CLI's (`src/cli/progress.rs`).

use crate::rows::results::ResultRow;
use std::time::Duration;

/// What one round did, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRound {
    /// The round's number (counting on from a resumed journal's).
    pub round: u32,
    /// Requests submitted in new batches.
    pub submitted: usize,
    /// Requests whose batch an earlier process had submitted (polled, not
    /// sent again).
    pub resumed: usize,
    /// The batches waited on.
    pub batches: Vec<String>,
    /// Requests answered.
    pub succeeded: usize,
    /// Requests that failed (in the batch, or the batch could not be sent
    /// or read).
    pub failed: usize,
    /// How long the round waited for its batches.
    pub waited: Duration,
}

/// Receives the runner's progress. Called from concurrent runs.
pub trait Progress: Send + Sync {
    /// The run starts: `total` runs to do, `skipped` already finished (resume).
    fn start(&self, arena: &str, total: usize, skipped: usize, mock: bool);
    /// One run finished and its row was written.
    fn finished(&self, row: &ResultRow);
    /// Several runs finished at once and their rows were written (the
    /// runner writes the rows that are ready together). Default: each in turn.
    fn finished_all(&self, rows: &[ResultRow]) {
        rows.iter().for_each(|row| self.finished(row));
    }
    /// A round of batch mode ended (`--batch`). Default: nothing.
    fn batch_round(&self, round: &BatchRound) {
        let _ = round;
    }
    /// Every run finished.
    fn done(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _arena: &str, _total: usize, _skipped: usize, _mock: bool) {}
    fn finished(&self, _row: &ResultRow) {}
    fn done(&self) {}
}
