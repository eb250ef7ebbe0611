//! [`InputProblem`]: why a comparison's inputs cannot be gated on. A gate
//! that passes when the run it gates never happened is the worst bug a CI
//! gate can have, so `compare` fails closed: an empty or torn file, two
//! arenas, a file that mixes runs, or item runs missing from the new file
//! each make the gate's outcome
//! [`GateOutcome::Ungated`](super::GateOutcome::Ungated) before any
//! regression is counted (`tribunal compare` gives each its own exit
//! code). Pure: it reads rows and what reading the files found.

use super::{Comparison, RunKey};
use crate::rows::results::ResultRow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// Which file of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    /// The baseline file.
    Base,
    /// The new file.
    New,
}

impl fmt::Display for Which {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Which::Base => "baseline",
            Which::New => "new",
        })
    }
}

/// One side's rows (the latest per item run) and what reading its file
/// found.
#[derive(Debug, Clone, Copy)]
pub struct SideInput<'a> {
    /// The latest row per (item, repeat).
    pub rows: &'a [ResultRow],
    /// Whether the file ended in a torn line (a run killed mid-write).
    pub torn: bool,
}

/// A reason the comparison cannot be gated on, each with its own code
/// (`tribunal compare` gives each its own exit code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum InputProblem {
    /// The file holds no valid row: the run never happened, or wrote
    /// nothing a comparison can read.
    NoRows {
        /// Which file.
        side: Which,
    },
    /// The file's last line is torn: the run that wrote it was killed, so
    /// its results are incomplete.
    TornFile {
        /// Which file.
        side: Which,
    },
    /// The two files are results of different arenas.
    ArenaMismatch {
        /// The baseline's arena.
        base: String,
        /// The new file's arena.
        new: String,
    },
    /// One file mixes rows of several arenas or config hashes (results
    /// appended from different runs).
    MixedRuns {
        /// Which file.
        side: Which,
        /// What differs: `arena` or `config_hash`.
        field: String,
        /// The values found, sorted.
        values: Vec<String>,
    },
    /// Item runs of the baseline are missing from the new file.
    MissingRuns {
        /// How many.
        count: usize,
        /// The first few, in report order.
        first: Vec<RunKey>,
    },
}

/// How many missing item runs a message names.
const NAMED: usize = 5;

impl InputProblem {
    /// The stable code, as the JSON output spells it.
    pub fn code(&self) -> &'static str {
        match self {
            InputProblem::NoRows { .. } => "no_rows",
            InputProblem::TornFile { .. } => "torn_file",
            InputProblem::ArenaMismatch { .. } => "arena_mismatch",
            InputProblem::MixedRuns { .. } => "mixed_runs",
            InputProblem::MissingRuns { .. } => "missing_runs",
        }
    }
}

impl fmt::Display for InputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputProblem::NoRows { side } => write!(
                f,
                "no_rows: the {side} file holds no valid result row; the run it should hold did not happen or wrote nothing"
            ),
            InputProblem::TornFile { side } => write!(
                f,
                "torn_file: the {side} file ends in a torn line (its run was killed mid-write); finish it with `run --resume` before comparing"
            ),
            InputProblem::ArenaMismatch { base, new } => write!(
                f,
                "arena_mismatch: the baseline holds arena {base:?} and the new file arena {new:?}"
            ),
            InputProblem::MixedRuns {
                side,
                field,
                values,
            } => write!(
                f,
                "mixed_runs: the {side} file mixes rows of {} {field}s ({}); compare one run with one run",
                values.len(),
                values.join(", ")
            ),
            InputProblem::MissingRuns { count, first } => {
                let named: Vec<String> = first
                    .iter()
                    .map(|k| format!("{}#{}", k.id, k.repeat))
                    .collect();
                let more = if *count > first.len() { ", …" } else { "" };
                write!(
                    f,
                    "missing_runs: {count} item run(s) of the baseline are not in the new file ({}{more}); pass --allow-missing if the new run is deliberately smaller",
                    named.join(", ")
                )
            }
        }
    }
}

/// Every problem with `base` and `new`, in exit-code order (the first one
/// decides the exit code). `allow_missing` lets baseline item runs be
/// absent from the new file ([`Comparison::only_base`] still counts them).
pub fn input_problems(
    base: SideInput<'_>,
    new: SideInput<'_>,
    comparison: &Comparison,
    allow_missing: bool,
) -> Vec<InputProblem> {
    let mut problems = Vec::new();
    for (side, input) in [(Which::Base, base), (Which::New, new)] {
        if input.rows.is_empty() {
            problems.push(InputProblem::NoRows { side });
        }
    }
    for (side, input) in [(Which::Base, base), (Which::New, new)] {
        if input.torn {
            problems.push(InputProblem::TornFile { side });
        }
    }
    let arenas =
        |rows: &[ResultRow]| -> BTreeSet<String> { rows.iter().map(|r| r.arena.clone()).collect() };
    let (base_arenas, new_arenas) = (arenas(base.rows), arenas(new.rows));
    if base_arenas.len() == 1 && new_arenas.len() == 1 && base_arenas != new_arenas {
        problems.push(InputProblem::ArenaMismatch {
            base: base_arenas.iter().cloned().collect(),
            new: new_arenas.iter().cloned().collect(),
        });
    }
    for (side, input, side_arenas) in [
        (Which::Base, base, base_arenas),
        (Which::New, new, new_arenas),
    ] {
        for (field, values) in [
            ("arena", side_arenas),
            (
                "config_hash",
                input.rows.iter().map(|r| r.config_hash.clone()).collect(),
            ),
        ] {
            if values.len() > 1 {
                problems.push(InputProblem::MixedRuns {
                    side,
                    field: field.to_string(),
                    values: values.into_iter().collect(),
                });
            }
        }
    }
    // Only when both files hold rows of one arena: otherwise every run is
    // "missing" and the problems above already say why.
    if problems.is_empty() && !allow_missing && !comparison.only_base.is_empty() {
        problems.push(InputProblem::MissingRuns {
            count: comparison.only_base.len(),
            first: comparison.only_base.iter().take(NAMED).cloned().collect(),
        });
    }
    problems
}
