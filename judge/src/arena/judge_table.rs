//! `[judge]` in arena.toml: the rubric judge's model and budgets (the
//! table's layout and checks are the rubric judge's, in `score::rubric`).

use super::ARENA_TOML;
use crate::problem::Problem;
use crate::score::rubric::{JudgeSettings, JudgeToml};

/// Reads `[judge]`: its settings (the defaults when absent), each problem
/// in `problems`.
pub(super) fn read(table: Option<JudgeToml>, problems: &mut Vec<Problem>) -> JudgeSettings {
    let (judge, judge_problems) = table.unwrap_or_default().settings();
    for message in judge_problems {
        problems.push(Problem::file(ARENA_TOML, message));
    }
    judge
}
