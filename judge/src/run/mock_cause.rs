//! Why a mock run ran out of script: an item whose scripted final answer
//! breaks its answer contract makes the runtime ask for the one repair,
//! which the script has no turn for. The run then ends with the contract's
//! own code and `tribunal lint`'s words for the answer
//! (`schema_mismatch: /total: "500" is not of type "number"`), not with
//! the script running out (`backend_error: script`).

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::score::Scored;
use tribunal_runtime::AnswerContract;
use tribunal_runtime::ErrorCode;
use tribunal_runtime::internal::answer::evaluate_answer;
use tribunal_runtime::internal::backend::{BackendErrorKind, SchemaTarget, ScriptStep};
use tribunal_runtime::internal::text::one_line;

/// What is said after the contract's reason.
const NO_REPAIR: &str = "the mock script has no turn for the repair this asks for";

/// `scored` with the cause of a script that ran out on the repair of its
/// own final answer, when that is why it failed; else `scored` as it is.
pub(super) fn with_mock_cause(arena: &Arena, item: &Item, scored: Scored) -> Scored {
    let ran_out = matches!(
        &scored,
        Scored::Failed { code: ErrorCode::BackendError, backend_failure: Some(f), .. }
            if f.kind == BackendErrorKind::Script
    );
    // A script whose final answer is rejected can only run out on the
    // repair (or later): the answer is the cause.
    if !ran_out {
        return scored;
    }
    match final_answer_rejected(arena, item) {
        Some((code, why)) => Scored::Failed {
            code,
            backend_failure: None,
            detail: Some(format!("{why} ({NO_REPAIR})")),
        },
        None => scored,
    }
}

/// The code and the reason the item's scripted final answer is rejected
/// with, as `tribunal lint` checks it; `None` when it is accepted.
fn final_answer_rejected(arena: &Arena, item: &Item) -> Option<(ErrorCode, String)> {
    let steps = item.mock.as_deref()?;
    let turn = steps.iter().rev().find_map(|s| match s {
        ScriptStep::Turn(t) if t.tool_calls.is_empty() => Some(t),
        _ => None,
    })?;
    let contract: &dyn AnswerContract = match &arena.verdict {
        Some(verdict) => verdict.schemas.as_ref(),
        None => item.schema.as_ref(),
    };
    let rejection = evaluate_answer(
        contract,
        SchemaTarget::Plain,
        &turn.text,
        turn.stop,
        &arena.answer,
    )
    .err()?;
    let why = if rejection.issues.is_empty() {
        one_line(&rejection.summary, 200)
    } else {
        let each: Vec<String> = rejection
            .issues
            .iter()
            .map(|i| {
                let path = if i.path.is_empty() { "(root)" } else { &i.path };
                format!("{path}: {}", one_line(&i.message, 200))
            })
            .collect();
        each.join("; ")
    };
    Some((rejection.code, why))
}
