//! What decides the exit code of a finished `run` (and `judge
//! calibrate`): the pass rate, the calibrations' kappa against
//! `--min-kappa`, and a run that stopped starting items early.

use std::process::ExitCode;
use tribunal::judge::calibration::{Calibration, calibrate_rubric};
use tribunal::judge::run::CostStop;
use tribunal::judge::{Arena, ResultRow, calibrate};

/// What decides the exit code of a finished run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitRule {
    /// `run`: the pass rate, and `--min-kappa` when given.
    PassRate,
    /// `judge calibrate`: `--min-kappa` alone (a disagreeing judge fails
    /// checks, which is what calibration measures, not a failure of it).
    Kappa,
}

/// The calibrations `--calibrate` adds to the report: the verdict judge's
/// against the gold verdicts, the rubric judge's against `gold_rubric`
/// (each only when the arena has such labels).
#[derive(Debug, Default)]
pub(crate) struct Calibrations {
    pub(crate) verdict: Option<Calibration>,
    pub(crate) rubric: Option<Calibration>,
}

impl Calibrations {
    pub(crate) fn of(arena: &Arena, rows: &[ResultRow]) -> Self {
        let (gold, gold_rubric) = (&arena.gold_verdicts(), &arena.gold_rubric());
        Calibrations {
            verdict: (!gold.is_empty()).then(|| calibrate(gold, rows)),
            rubric: (!gold_rubric.is_empty()).then(|| calibrate_rubric(gold_rubric, rows)),
        }
    }

    /// Whether every calibration's kappa reaches `min` (said when one does
    /// not); true without `min`.
    pub(crate) fn meet(&self, min: Option<f64>) -> bool {
        let mut ok = true;
        for c in self.verdict.iter().chain(&self.rubric) {
            if let Some(min) = min.filter(|min| !c.meets(*min)) {
                eprintln!(
                    "tribunal: {}: {} is below --min-kappa {min}",
                    c.title(),
                    c.kappa_text()
                );
                ok = false;
            }
        }
        ok
    }
}

/// Exit 1, said, when `--fail-fast` or `--max-cost-usd` stopped starting runs.
pub(crate) fn stopped_early(
    (at_failure, for_cost): (Option<usize>, Option<CostStop>),
) -> Option<ExitCode> {
    if let Some(not_started) = at_failure {
        eprintln!(
            "tribunal: --fail-fast: stopped starting item runs after one did not pass; {not_started} item run(s) not started (--resume runs them)"
        );
    } else if let Some(stop) = for_cost {
        eprintln!(
            "tribunal: stopped starting item runs: ${:.6} spent of --max-cost-usd ${}; {} item run(s) not started (--resume runs them)",
            stop.spent_usd, stop.max_usd, stop.not_started
        );
    } else {
        return None;
    }
    Some(ExitCode::from(1))
}
