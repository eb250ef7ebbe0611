//! GREEN/RED verdicts: the wire envelope ([`VerdictSchemas`]), the flat
//! stored verdict with what reproduces it ([`StoredVerdict`]), human
//! submissions ([`submit`]) and agent reviews ([`Review`]).
//!
//! A review is configured with two owner schemas, GREEN (pass) and RED
//! (fail). The model answers with the envelope
//! `{"result": {"verdict": …, "verdictFields": {…}}}`; the stored verdict is
//! flat, `{"verdict": "GREEN"|"RED", …owner fields}`, verdict first, and
//! validated against the chosen verdict's original owner schema. A review
//! ends GREEN, RED or ERROR(code); an ERROR keeps only its code.

pub mod change_review;
mod hash;
mod review;
mod stored;
mod submission;

pub use crate::arena::{VerdictArena, VerdictToml};
pub use crate::score::envelope::{
    Envelope, FIELDS_KEY, FIELDS_MISMATCH, FORMAT_NAME, RESULT_KEY, VERDICT_KEY, VerdictSchemas,
};
pub use hash::review_hash;
pub use review::{DEFAULT_REVIEW_SYSTEM, Review, run_review};
pub use stored::{HUMAN_BACKEND, Reproduction, STORED_VERSION, StoredVerdict, VerdictOutcome};
pub use submission::{SubmissionError, submit};

pub use crate::green_red::Verdict;
