//! Human submissions: a verdict and its flat owner fields, validated through
//! the same path as a model's answer ([`VerdictSchemas::decode`] on the
//! envelope, target `plain`). An invalid submission says each problem by its
//! field path, in words for a person (the same rejection a model's answer
//! would get, without the model's repair prompt).

use super::hash::review_hash;
use super::stored::{HUMAN_BACKEND, Reproduction, StoredVerdict};
use super::{FIELDS_KEY, RESULT_KEY, VERDICT_KEY, Verdict, VerdictSchemas};
use serde_json::{Value, json};
use tribunal_runtime::ErrorCode;
use tribunal_runtime::Rejection;
use tribunal_runtime::internal::backend::SchemaTarget;
use tribunal_runtime::internal::conversation::Usage;

/// An invalid submission. `Display` is for the person who submitted it:
/// the error code and summary, then each problem by its field path (at most
/// ten, each cut to 200 characters) — not the repair prompt a
/// model would get (`repair_message(&e.rejection, None)` gives that).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", person_message(.rejection))]
pub struct SubmissionError {
    /// Why the submission was refused.
    pub rejection: Rejection,
}

/// The problems a [`SubmissionError`] shows; the rest are counted.
pub(crate) const MAX_SHOWN: usize = 10;

/// `the verdict was refused (schema_mismatch): …` and one line per problem.
fn person_message(rejection: &Rejection) -> String {
    let cut = |s: &str| tribunal_runtime::internal::text::one_line(s, 200);
    // The decoder's summary speaks of the wire envelope a model writes.
    let summary = match rejection.code {
        ErrorCode::SchemaMismatch => {
            "the fields do not match the verdict's owner schema".to_string()
        }
        _ => cut(&rejection.summary),
    };
    let mut out = format!(
        "the verdict was refused ({}): {summary}",
        rejection.code.as_str()
    );
    for issue in rejection.issues.iter().take(MAX_SHOWN) {
        let at = if issue.path.is_empty() {
            "the fields".to_string()
        } else {
            format!("field {}", cut(&issue.path))
        };
        out.push_str(&format!("\n- {at}: {}", cut(&issue.message)));
    }
    if rejection.issues.len() > MAX_SHOWN {
        out.push_str(&format!(
            "\n- … and {} more",
            rejection.issues.len() - MAX_SHOWN
        ));
    }
    out
}

/// Validates a human verdict with flat owner `fields` against `schemas` and
/// returns its stored record (backend and model `human`, zero usage, the
/// hash of the schemas). Nothing is stored on failure.
pub fn submit(
    schemas: &VerdictSchemas,
    verdict: Verdict,
    fields: Value,
) -> Result<StoredVerdict, SubmissionError> {
    let wire = json!({ RESULT_KEY: { VERDICT_KEY: verdict.as_str(), FIELDS_KEY: fields } });
    let flat = schemas
        .decode(SchemaTarget::Plain, wire)
        .map_err(|rejection| SubmissionError { rejection })?;
    let reproduction = Reproduction {
        backend: HUMAN_BACKEND.to_string(),
        model: HUMAN_BACKEND.to_string(),
        config_hash: review_hash(None, None, schemas, &[], None, None),
        usage: Usage::default(),
    };
    Ok(StoredVerdict::accepted(flat, reproduction))
}
