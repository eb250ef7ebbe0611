//! [`InputProblem`]: why a comparison's inputs cannot be gated on. A gate
//! that passes when the run it gates never happened is the worst bug a CI
//! gate can have, so `compare` fails closed: an empty or torn file, two
//! arenas, a file that mixes runs, item runs missing from the new file,
//! item runs of the new file the baseline never ran (a baseline that
//! stopped early), or baseline runs that measured nothing (a provider's
//! failure, or an ERROR where the new run FAILs) each make the gate's
//! outcome
//! [`GateOutcome::Ungated`](super::GateOutcome::Ungated) before any
//! regression is counted (`tribunal compare` gives each its own exit
//! code). Pure: it reads rows and what reading the files found.

use super::{Comparison, RunKey};
use crate::rows::results::ResultRow;
use crate::score::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use tribunal_runtime::ErrorCode;

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
    /// Item runs of the new file are not in the baseline: a baseline that
    /// stopped early (a spending cap, `--fail-fast`, a killed job) compares
    /// only what it ran, so the rest of the new file would never be gated.
    NewOnlyRuns {
        /// How many.
        count: usize,
        /// The first few, in the new file's order.
        first: Vec<RunKey>,
    },
    /// Matched item runs the baseline measured nothing on: an ERROR from
    /// the provider (`backend_error`: an outage, a rate limit), or any ERROR
    /// where the new run FAILs (the baseline's checks never ran, so the
    /// FAIL can be neither a regression nor not one).
    BaselineErrors {
        /// How many.
        count: usize,
        /// Of those, `backend_error` rows.
        backend: usize,
        /// The first few, in the baseline's order.
        first: Vec<RunKey>,
    },
}

/// What [`input_problems`] lets through: both are off by default (the gate
/// fails closed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Allow {
    /// Baseline item runs may be missing from the new file (a deliberately
    /// smaller new run): `compare --allow-missing`.
    pub missing: bool,
    /// Item runs of the new file may be missing from the baseline (items
    /// the change added, where the baseline is known to be complete):
    /// `compare --allow-new-runs`.
    pub new_runs: bool,
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
            InputProblem::NewOnlyRuns { .. } => "new_only_runs",
            InputProblem::BaselineErrors { .. } => "baseline_errors",
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
            InputProblem::MissingRuns { count, first } => write!(
                f,
                "missing_runs: {count} item run(s) of the baseline are not in the new file ({}); pass --allow-missing if the new run is deliberately smaller",
                named(*count, first)
            ),
            InputProblem::NewOnlyRuns { count, first } => write!(
                f,
                "new_only_runs: {count} item run(s) of the new file are not in the baseline ({}): a baseline that stopped early gates only what it ran; run the baseline again in full, or pass --allow-new-runs if the baseline is complete and the change added these items",
                named(*count, first)
            ),
            InputProblem::BaselineErrors {
                count,
                backend,
                first,
            } => write!(
                f,
                "baseline_errors: {count} item run(s) ended in ERROR in the baseline, which measured nothing there ({backend} the provider's failure, backend_error; the rest an ERROR where the new run FAILs): {}; run the baseline again",
                named(*count, first)
            ),
        }
    }
}

/// `a#0, b#1` of the first keys, with `, …` when there are more.
fn named(count: usize, first: &[RunKey]) -> String {
    let named: Vec<String> = first
        .iter()
        .map(|k| format!("{}#{}", k.id, k.repeat))
        .collect();
    let more = if count > first.len() { ", …" } else { "" };
    format!("{}{more}", named.join(", "))
}

/// Every problem with `base` and `new`, in exit-code order (the first one
/// decides the exit code). `allow` lets baseline item runs be absent from
/// the new file, or the new file's from the baseline
/// ([`Comparison::only_base`] and [`Comparison::only_new`] still count
/// them); nothing lets a baseline that measured nothing through.
pub fn input_problems(
    base: SideInput<'_>,
    new: SideInput<'_>,
    comparison: &Comparison,
    allow: Allow,
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
    if !problems.is_empty() {
        return problems;
    }
    if !allow.missing && !comparison.only_base.is_empty() {
        problems.push(InputProblem::MissingRuns {
            count: comparison.only_base.len(),
            first: comparison.only_base.iter().take(NAMED).cloned().collect(),
        });
    }
    if !allow.new_runs && !comparison.only_new.is_empty() {
        problems.push(InputProblem::NewOnlyRuns {
            count: comparison.only_new.len(),
            first: comparison.only_new.iter().take(NAMED).cloned().collect(),
        });
    }
    problems.extend(baseline_errors(base.rows, new.rows));
    problems
}

/// The matched item runs whose baseline row measured nothing: a
/// `backend_error` ERROR whatever the new run did, or any ERROR where the
/// new run FAILs.
fn baseline_errors(base: &[ResultRow], new: &[ResultRow]) -> Option<InputProblem> {
    let new: BTreeMap<(&str, u32), &ResultRow> =
        new.iter().map(|r| ((r.id.as_str(), r.repeat), r)).collect();
    let mut keys = Vec::new();
    let mut backend = 0;
    for b in base.iter().filter(|b| b.outcome == Outcome::Error) {
        let Some(n) = new.get(&(b.id.as_str(), b.repeat)) else {
            continue;
        };
        let provider = b.error_code == Some(ErrorCode::BackendError);
        if provider || n.outcome == Outcome::Fail {
            backend += usize::from(provider);
            keys.push(RunKey {
                id: b.id.clone(),
                repeat: b.repeat,
            });
        }
    }
    (!keys.is_empty()).then(|| InputProblem::BaselineErrors {
        count: keys.len(),
        backend,
        first: keys.into_iter().take(NAMED).collect(),
    })
}
