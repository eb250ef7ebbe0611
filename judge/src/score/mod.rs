//! Scoring: the mechanical checks of an item ([`checks`]), the rubric
//! judge that grades an answer against a rubric ([`rubric`]), and the
//! GREEN/RED envelope contract both read verdicts through (`envelope`).
//! Below the arena (which parses checks) and the runner (which scores runs).

pub mod checks;
pub(crate) mod envelope;
pub mod rubric;
