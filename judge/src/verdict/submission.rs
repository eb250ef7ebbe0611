//! Human submissions: a verdict and its flat owner fields, validated through
//! the same path as a model's answer ([`VerdictSchemas::decode`] on the
//! envelope, target `plain`). An invalid submission's error text is exactly
//! the repair message a model would get.

use super::hash::review_hash;
use super::stored::{HUMAN_BACKEND, Reproduction, StoredVerdict};
use super::{FIELDS_KEY, RESULT_KEY, VERDICT_KEY, Verdict, VerdictSchemas};
use serde_json::{Value, json};
use tribunal_runtime::answer::repair_message;
use tribunal_runtime::backend::SchemaTarget;
use tribunal_runtime::contract::Rejection;
use tribunal_runtime::conversation::Usage;

/// An invalid submission. `Display` is the repair-message text: the error
/// code and summary, at most five instance paths with their messages (each
/// cut to 200 characters), and the closing instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", repair_message(.rejection, None))]
pub struct SubmissionError {
    /// Why the submission was refused.
    pub rejection: Rejection,
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
