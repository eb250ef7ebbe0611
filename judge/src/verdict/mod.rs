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

mod arena;
mod envelope;
mod hash;
mod review;
mod stored;
mod submission;

pub(crate) use arena::load_verdict;
pub use arena::{VerdictArena, VerdictToml};
pub use envelope::{
    Envelope, FIELDS_KEY, FIELDS_MISMATCH, FORMAT_NAME, RESULT_KEY, VERDICT_KEY, VerdictSchemas,
};
pub use hash::review_hash;
pub use review::{DEFAULT_REVIEW_SYSTEM, Review, run_review};
pub use stored::{HUMAN_BACKEND, Reproduction, STORED_VERSION, StoredVerdict, VerdictOutcome};
pub use submission::{SubmissionError, submit};

use serde::{Deserialize, Serialize};

/// A review's verdict: the change passes (GREEN) or fails (RED).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The change passes review.
    Green,
    /// The change fails review.
    Red,
}

impl Verdict {
    /// Both verdicts, GREEN first.
    pub const ALL: [Verdict; 2] = [Verdict::Green, Verdict::Red];

    /// `GREEN` or `RED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Green => "GREEN",
            Verdict::Red => "RED",
        }
    }

    /// Parses the exact spelling `GREEN` or `RED`.
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Parses `GREEN` or `RED` ignoring case (Anthropic does not guarantee
    /// the capitalisation of const values).
    pub fn parse_ignore_case(s: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verdict {
    type Err = String;

    /// Parses `GREEN` or `RED` (exact spelling).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::parse(s).ok_or_else(|| format!("expected GREEN or RED, found {s:?}"))
    }
}
