//! Rubric grading: each `rubric` check of an answered run graded by the
//! judge backend it is given, and the [`JudgeRecord`] a row keeps of it
//! (who judged, what it used, whether it failed).

use crate::green_red::Verdict;
use crate::score::Scored;
use crate::score::checks::{Check, CheckResult, ItemCheck};
use crate::score::rubric::{self, JudgeSettings, Judgement};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use tribunal_runtime::internal::conversation::Usage;
use tribunal_runtime::{Backend, ErrorCode};

/// The rubric judge of a row: who judged, what it used, whether it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    /// The judge's backend name.
    pub backend: String,
    /// The judge's model.
    pub model: String,
    /// Token usage over every judgement of the row.
    pub usage: Usage,
    /// The verdict of each `rubric` check judged, in check order (what a
    /// rubric calibration scores).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
    /// Wall time over every judgement of the row, in milliseconds (the
    /// row's own `wall_ms` is the agent's).
    #[serde(default)]
    pub wall_ms: f64,
    /// Whether a judgement ended in an error (the row is then ERROR with
    /// the judge's code). Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub failed: bool,
    /// Whether the judge was reached at a custom endpoint (an unpriced
    /// judge model there costs 0). Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub custom_endpoint: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The rubric judge a run is graded by: its name, whether it is on a
/// custom endpoint, its settings (`[judge]`), and the backend that judges
/// each rubric check (`None`: no judge for it — the run is then ERROR).
pub(crate) struct RubricJudge<'a> {
    /// The judge's backend and model names (`none` / `none` without one).
    pub(crate) name: (String, String),
    /// Whether the judge is reached at a custom endpoint.
    pub(crate) custom_endpoint: bool,
    /// The `[judge]` settings: budgets and retries.
    pub(crate) settings: &'a JudgeSettings,
    /// The judge backend of one rubric check.
    pub(crate) backend_for: &'a (dyn Fn(&ItemCheck) -> Option<Arc<dyn Backend>> + Sync),
}

/// Grades an answered run's `answer` to `input` on each `rubric` check of
/// `item_checks`, replacing those checks' results in `checks`. A judgement
/// that fails makes the run ERROR with the judge's code (no answer, no
/// checks), and the record says so.
///
/// With a `transcript` (a conversation item's: its user's goal and the
/// conversation, [`crate::score::transcript`]) the judge reads that instead
/// of `input` and `answer` ([`rubric::transcript_prompt`]).
pub(crate) async fn grade_rubrics(
    judge: RubricJudge<'_>,
    item_checks: &[ItemCheck],
    (input, transcript): (&str, Option<(&str, &str)>),
    answer: Value,
    mut checks: Vec<CheckResult>,
) -> (Scored, JudgeRecord) {
    let (backend, model) = judge.name;
    let mut record = JudgeRecord {
        backend,
        model,
        usage: Default::default(),
        verdicts: Vec::new(),
        wall_ms: 0.0,
        failed: false,
        custom_endpoint: judge.custom_endpoint,
    };
    let failed = |mut record: JudgeRecord, code| {
        record.failed = true;
        let failed = Scored::Failed {
            code,
            backend_failure: None,
            detail: None,
        };
        (failed, record)
    };
    for (check, result) in item_checks.iter().zip(checks.iter_mut()) {
        let Check::Rubric { rubric, .. } = &check.check else {
            continue;
        };
        let Some(backend) = (judge.backend_for)(check) else {
            return failed(record, ErrorCode::BackendError);
        };
        let prompt = match transcript {
            Some((goal, transcript)) => rubric::transcript_prompt(rubric, goal, transcript),
            None => rubric::judge_prompt(rubric, input, &answer),
        };
        let run = rubric::judge_prompted(backend, judge.settings, &prompt).await;
        record.usage.add(run.usage);
        record.wall_ms += run.wall_ms;
        match &run.judgement {
            Judgement::Failed(code) => return failed(record, *code),
            Judgement::Judged { verdict, .. } => record.verdicts.push(*verdict),
        }
        *result = check.judged(&run.judgement);
    }
    (Scored::Answered { answer, checks }, record)
}
