//! [`AnswerContract`]: what a run's final answer must be, and how it travels.
//!
//! The loop knows only this trait. [`OutputSchema`]
//! implements it for a plain owner schema; the judge implements it for the
//! GREEN/RED verdict envelope.

use crate::error::{ErrorCode, SchemaError};
use crate::output::SchemaTarget;
use crate::schema::{Issue, OutputSchema};
use serde_json::Value;
use std::fmt::Debug;
use std::sync::Arc;

/// Why a final answer was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The stable code.
    pub code: ErrorCode,
    /// One line for the repair message (may quote model text; never stored).
    pub summary: String,
    /// Problems by instance path (may be empty).
    pub issues: Vec<Issue>,
}

impl Rejection {
    /// A rejection without instance paths.
    pub fn new(code: ErrorCode, summary: impl Into<String>) -> Self {
        Rejection {
            code,
            summary: summary.into(),
            issues: Vec::new(),
        }
    }

    /// A `schema_mismatch` with its issues.
    pub fn schema_mismatch(summary: impl Into<String>, issues: Vec<Issue>) -> Self {
        Rejection {
            code: ErrorCode::SchemaMismatch,
            summary: summary.into(),
            issues,
        }
    }
}

/// What a final answer must be.
pub trait AnswerContract: Send + Sync + Debug {
    /// The format name sent to providers (`^[a-zA-Z0-9_-]{1,64}$`).
    fn format_name(&self) -> &str;
    /// The schema to send for `target` (compiled and cached by the implementor).
    fn wire_schema(&self, target: SchemaTarget) -> Result<Arc<Value>, SchemaError>;
    /// Whether the wire answer for `target` must be a JSON object (lets the
    /// extractor skip spans of other root types).
    fn wire_root_is_object(&self, target: SchemaTarget) -> bool;
    /// Turns a wire answer into the stored value and validates it against the
    /// original owner schema.
    fn decode_and_validate(&self, target: SchemaTarget, wire: Value) -> Result<Value, Rejection>;
}

impl AnswerContract for OutputSchema {
    fn format_name(&self) -> &str {
        self.name()
    }

    fn wire_schema(&self, target: SchemaTarget) -> Result<Arc<Value>, SchemaError> {
        Ok(self.compiled(target)?.wire.clone())
    }

    fn wire_root_is_object(&self, target: SchemaTarget) -> bool {
        match target {
            SchemaTarget::Plain => self.root_is_object(),
            // Provider roots are always objects (non-object roots are wrapped).
            SchemaTarget::OpenAi | SchemaTarget::Anthropic => true,
        }
    }

    fn decode_and_validate(&self, target: SchemaTarget, wire: Value) -> Result<Value, Rejection> {
        let compiled = self
            .compiled(target)
            .map_err(|e| Rejection::new(ErrorCode::SchemaMismatch, e.to_string()))?;
        let value = compiled.plan.decode(wire).map_err(|issues| {
            Rejection::schema_mismatch("a JSON-encoded field could not be decoded", issues)
        })?;
        let issues = self.validator().issues(&value);
        if issues.is_empty() {
            Ok(value)
        } else {
            Err(Rejection::schema_mismatch(
                format!("{} problem(s) against the schema", issues.len()),
                issues,
            ))
        }
    }
}
