//! What the checks make of a run: its [`Scored`] result (an answer with
//! every check's result, or an error code) and the [`Outcome`] that
//! follows from it — PASS, FAIL or ERROR. A row stores both
//! (`rows::results`); the scoring is here.

use crate::score::checks::{CheckResult, ItemCheck, score_in};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::internal::report::BackendFailure;
use tribunal_runtime::{ErrorCode, RunOutcome, RunReport};

/// How an item's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    /// Every check held.
    Pass,
    /// A check failed.
    Fail,
    /// The run ended with an error code (checks skipped). Never a FAIL.
    Error,
}

impl Outcome {
    /// `PASS`, `FAIL` or `ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Error => "ERROR",
        }
    }
}

/// How a scored run ended, as its row stores it: an answer with its check
/// results (PASS when every check held, else FAIL), or an error code with
/// what is known of a backend failure. An ERROR cannot hold an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Scored {
    /// The run returned a valid answer; `checks` are its results.
    Answered {
        /// The validated answer.
        answer: Value,
        /// Every check's result, in the item's order.
        checks: Vec<CheckResult>,
    },
    /// The run (or its judge) ended with an error code.
    Failed {
        /// The error code.
        code: ErrorCode,
        /// On `backend_error`: the failure's kind, status and error type.
        backend_failure: Option<BackendFailure>,
        /// What is known of why, in tribunal's words, when that is more
        /// than the code (a mock script's final answer that breaks the
        /// schema: the path and the reason).
        detail: Option<String>,
    },
}

impl Scored {
    /// PASS, FAIL or ERROR.
    pub fn outcome(&self) -> Outcome {
        match self {
            Scored::Answered { checks, .. } if checks.iter().all(|c| c.ok) => Outcome::Pass,
            Scored::Answered { .. } => Outcome::Fail,
            Scored::Failed { .. } => Outcome::Error,
        }
    }
}

/// What `checks` make of a run: its answer with every check's result, or
/// its error code (checks are skipped). The answer and the backend failure
/// move out of `report` into the result (the report's answer is left
/// `null`), the answer without the parser's spare capacity: a row keeps it
/// until the report.
/// The state checks read `world`, the run's own folder (`None`: it has none).
pub(crate) fn score_run(
    checks: &[ItemCheck],
    report: &mut RunReport,
    world: Option<&std::path::Path>,
) -> Scored {
    match &mut report.outcome {
        RunOutcome::Ok { value } => {
            let mut answer = std::mem::take(value);
            let checks = score_in(checks, Some(&answer), report, world);
            tribunal_runtime::internal::json::shrink_to_fit(&mut answer);
            Scored::Answered { checks, answer }
        }
        RunOutcome::Error { code } => Scored::Failed {
            code: *code,
            backend_failure: report.backend_failure.take(),
            detail: None,
        },
    }
}
