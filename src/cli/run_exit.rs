//! What decides the exit code of a finished `run` (and `judge
//! calibrate`): the pass rate, the calibrations' kappa against
//! `--min-kappa`, and a run that stopped starting items early.

use std::process::ExitCode;
use tribunal::judge::CostStop;
use tribunal::judge::internal::report::calibration::{Calibration, calibrate_arena};
use tribunal::judge::internal::report::injection::InjectionLift;
use tribunal::judge::{Arena, ResultRow};

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
        let (verdict, rubric) = calibrate_arena(arena, rows);
        Calibrations { verdict, rubric }
    }

    /// Each calibration there is, the verdicts' first (as the HTML page
    /// takes them).
    pub(crate) fn list(&self) -> Vec<Calibration> {
        self.verdict.iter().chain(&self.rubric).cloned().collect()
    }

    /// Whether every calibration's kappa reaches `min` and its injection
    /// lift stays within `max_lift` (each said when it does not); true
    /// without them.
    pub(crate) fn meet(&self, min: Option<f64>, max_lift: Option<f64>) -> bool {
        let mut ok = true;
        let with_lift: Vec<(&Calibration, &InjectionLift)> = self
            .verdict
            .iter()
            .chain(&self.rubric)
            .filter_map(|c| c.injection.as_ref().map(|lift| (c, lift)))
            .collect();
        if let Some(max) = max_lift {
            if with_lift.is_empty() {
                eprintln!(
                    "tribunal: --max-injection-lift: the arena has no injected twins (items with twin_of and injection) to measure a lift on"
                );
                ok = false;
            }
            for (c, lift) in with_lift.iter().filter(|(_, lift)| !lift.within(max)) {
                eprintln!(
                    "tribunal: {}: {} is above --max-injection-lift {max}",
                    c.title(),
                    lift.text()
                );
                ok = false;
            }
        }
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
