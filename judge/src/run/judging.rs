//! The rubric judge's part of a run: each `rubric` check of an answered
//! item graded by the judge the backends supply.

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::rows::results::{JudgeRecord, Scored};
use crate::run::backends::BackendFactory;
use crate::score::checks::{Check, CheckResult};
use crate::score::rubric::{self, Judgement};
use serde_json::Value;
use tribunal_runtime::ErrorCode;

/// Grades an answered run's `answer` on each of `item`'s `rubric` checks,
/// replacing those checks' results in `checks`. A judgement that fails
/// makes the run ERROR with the judge's code (no answer, no checks), and
/// the record says so.
pub(super) async fn judge_answer(
    arena: &Arena,
    item: &Item,
    answer: Value,
    mut checks: Vec<CheckResult>,
    backends: &dyn BackendFactory,
) -> (Scored, JudgeRecord) {
    let (backend, model) = backends
        .judge_name()
        .unwrap_or_else(|| ("none".to_string(), "none".to_string()));
    let mut record = JudgeRecord {
        backend,
        model,
        usage: Default::default(),
        verdicts: Vec::new(),
        wall_ms: 0.0,
        failed: false,
        custom_endpoint: backends.judge_on_custom_endpoint(),
    };
    let failed = |mut record: JudgeRecord, code| {
        record.failed = true;
        let failed = Scored::Failed {
            code,
            backend_failure: None,
        };
        (failed, record)
    };
    for (check, result) in item.checks.iter().zip(checks.iter_mut()) {
        let Check::Rubric { rubric, .. } = &check.check else {
            continue;
        };
        let Some(judge) = backends.judge_for(item, check) else {
            return failed(record, ErrorCode::BackendError);
        };
        let run = rubric::judge(judge, &arena.judge, rubric, &item.input, &answer).await;
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
