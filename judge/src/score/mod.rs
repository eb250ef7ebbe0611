//! Scoring: what an item's checks make of a run. The mechanical checks
//! ([`checks`]), the rubric judge that grades an answer against a rubric
//! ([`rubric`]: its prompt and settings), the `command_passes` checks run
//! on a run's final copy (`command`), the grading of a run's rubric
//! checks (`grading`, with the [`JudgeRecord`] a row keeps), the
//! [`Scored`] result of a run with its [`Outcome`] (`scored`), and the
//! GREEN/RED envelope contract verdicts are read through (`envelope`).
//! Below the arena (which parses checks), the rows (which store scores)
//! and the runner (which runs an item, then scores it here).

pub mod checks;
mod command;
pub(crate) mod envelope;
mod grading;
pub mod rubric;
mod scored;
pub(crate) mod transcript;

pub(crate) use command::{CommandWorld, detail, run_commands};
pub use grading::JudgeRecord;
pub(crate) use grading::{RubricJudge, grade_rubrics};
pub(crate) use scored::score_run;
pub use scored::{Outcome, Scored};
