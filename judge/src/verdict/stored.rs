//! [`StoredVerdict`]: the record kept for one review — its outcome (GREEN,
//! RED or ERROR with only a code), the flat verdict, and what reproduces it
//! (backend, model, config hash, usage).
//!
//! ```json
//! {"version": 1, "outcome": "RED",
//!  "result": {"verdict": "RED", "summary": "…", "findings": […], "covered": […]},
//!  "reproduction": {"backend": "mock", "model": "scripted", "config_hash": "…",
//!                   "usage": {"input_tokens": 0, "output_tokens": 0}}}
//! ```
//!
//! An ERROR record has `"error_code"` instead of `"result"` — never the
//! model's output — and, for `backend_error`, `"backend_failure"` (kind,
//! HTTP status, provider error type; never a message).

use super::{VERDICT_KEY, Verdict};
use crate::rows::results::ResultRow;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::internal::conversation::Usage;
use tribunal_runtime::internal::report::BackendFailure;
use tribunal_runtime::{ErrorCode, RunOutcome, RunReport};

/// The layout version written in every stored verdict.
pub const STORED_VERSION: u32 = 1;

/// The backend name of a human submission.
pub const HUMAN_BACKEND: &str = "human";

/// How a review ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerdictOutcome {
    /// The change passes.
    Green,
    /// The change fails.
    Red,
    /// No valid verdict; only the stable code is kept.
    Error(ErrorCode),
}

impl VerdictOutcome {
    /// `GREEN`, `RED` or `ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictOutcome::Green => "GREEN",
            VerdictOutcome::Red => "RED",
            VerdictOutcome::Error(_) => "ERROR",
        }
    }

    /// The verdict, unless the review ended in an error.
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            VerdictOutcome::Green => Some(Verdict::Green),
            VerdictOutcome::Red => Some(Verdict::Red),
            VerdictOutcome::Error(_) => None,
        }
    }
}

impl From<Verdict> for VerdictOutcome {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::Green => VerdictOutcome::Green,
            Verdict::Red => VerdictOutcome::Red,
        }
    }
}

/// What reproduces a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reproduction {
    /// The backend's name (`mock`, `anthropic`, …; `human` for a submission).
    pub backend: String,
    /// The model name.
    pub model: String,
    /// 16 hex digits of SHA-256 over the canonical config: prompt, schemas, tools,
    /// budgets (see [`review_hash`](super::review_hash)).
    pub config_hash: String,
    /// Token usage over the review (zero for a submission).
    pub usage: Usage,
}

/// The stored record of one review or submission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredJson", try_from = "StoredJson")]
#[non_exhaustive]
pub struct StoredVerdict {
    /// GREEN, RED or ERROR(code).
    pub outcome: VerdictOutcome,
    /// The flat verdict `{"verdict": …, …owner fields}`, verdict first;
    /// `None` on ERROR.
    pub result: Option<Value>,
    /// What reproduces it.
    pub reproduction: Reproduction,
    /// On ERROR `backend_error`: the failure's kind, HTTP status and the
    /// provider's error type (never a message).
    pub backend_failure: Option<BackendFailure>,
}

impl StoredVerdict {
    /// The record of an accepted flat verdict (as returned by
    /// [`VerdictSchemas::decode`](super::VerdictSchemas::decode)).
    /// A value without a valid `verdict` is an ERROR `schema_mismatch`.
    pub fn accepted(flat: Value, reproduction: Reproduction) -> StoredVerdict {
        match flat
            .get(VERDICT_KEY)
            .and_then(Value::as_str)
            .and_then(Verdict::parse)
        {
            Some(v) => StoredVerdict {
                outcome: v.into(),
                result: Some(flat),
                reproduction,
                backend_failure: None,
            },
            None => StoredVerdict::error(ErrorCode::SchemaMismatch, reproduction),
        }
    }

    /// The record of a review that ended without a verdict.
    pub fn error(code: ErrorCode, reproduction: Reproduction) -> StoredVerdict {
        StoredVerdict {
            outcome: VerdictOutcome::Error(code),
            result: None,
            reproduction,
            backend_failure: None,
        }
    }

    /// The record with what is known of the backend failure that ended it.
    pub fn with_backend_failure(mut self, failure: Option<BackendFailure>) -> StoredVerdict {
        self.backend_failure = failure;
        self
    }

    /// The record of a finished run whose contract was a [`VerdictSchemas`](super::VerdictSchemas).
    pub fn from_report(
        report: &RunReport,
        backend: &str,
        model: &str,
        config_hash: &str,
    ) -> StoredVerdict {
        let reproduction = Reproduction {
            backend: backend.to_string(),
            model: model.to_string(),
            config_hash: config_hash.to_string(),
            usage: report.usage,
        };
        match &report.outcome {
            RunOutcome::Ok { value } => StoredVerdict::accepted(value.clone(), reproduction),
            RunOutcome::Error { code } => StoredVerdict::error(*code, reproduction)
                .with_backend_failure(report.backend_failure.clone()),
        }
    }

    /// The record of an arena result row of a verdict arena.
    pub fn from_row(row: &ResultRow) -> StoredVerdict {
        let reproduction = Reproduction {
            backend: row.backend.clone(),
            model: row.model.clone(),
            config_hash: row.config_hash.clone(),
            usage: row.usage,
        };
        match (&row.answer, row.error_code) {
            (_, Some(code)) => StoredVerdict::error(code, reproduction)
                .with_backend_failure(row.backend_failure.clone()),
            (Some(answer), None) => StoredVerdict::accepted(answer.clone(), reproduction),
            (None, None) => StoredVerdict::error(ErrorCode::SchemaMismatch, reproduction),
        }
    }

    /// The record as pretty JSON (what `tribunal judge` prints).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(&StoredJson::from(self.clone()))
            .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise: {e}\"}}"))
    }
}

/// The serialised layout of [`StoredVerdict`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredJson {
    version: u32,
    outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error_code: Option<ErrorCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    backend_failure: Option<BackendFailure>,
    reproduction: Reproduction,
}

impl From<StoredVerdict> for StoredJson {
    fn from(v: StoredVerdict) -> Self {
        StoredJson {
            version: STORED_VERSION,
            outcome: v.outcome.as_str().to_string(),
            result: v.result,
            error_code: match v.outcome {
                VerdictOutcome::Error(code) => Some(code),
                _ => None,
            },
            backend_failure: v.backend_failure,
            reproduction: v.reproduction,
        }
    }
}

impl TryFrom<StoredJson> for StoredVerdict {
    type Error = String;

    fn try_from(j: StoredJson) -> Result<Self, Self::Error> {
        let outcome = match (j.outcome.as_str(), j.error_code, &j.result) {
            ("GREEN", None, Some(_)) => VerdictOutcome::Green,
            ("RED", None, Some(_)) => VerdictOutcome::Red,
            ("ERROR", Some(code), None) => VerdictOutcome::Error(code),
            (o, _, _) => {
                return Err(format!(
                    "inconsistent stored verdict: outcome {o:?} needs a result (GREEN, RED) or an error_code (ERROR)"
                ));
            }
        };
        Ok(StoredVerdict {
            outcome,
            result: j.result,
            reproduction: j.reproduction,
            backend_failure: j.backend_failure,
        })
    }
}
