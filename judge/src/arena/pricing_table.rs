//! `[pricing]` in arena.toml: model prices laid over the built-in table.

use super::ARENA_TOML;
use crate::pricing::Pricing;
use crate::problem::Problem;

/// Reads `[pricing]`: the built-in prices when absent or refused (its
/// problem in `problems`).
pub(super) fn read(table: Option<Pricing>, problems: &mut Vec<Problem>) -> Pricing {
    match table.map(|p| p.checked("pricing")) {
        None => Pricing::default(),
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            problems.push(Problem::file(ARENA_TOML, e.to_string()));
            Pricing::default()
        }
    }
}
