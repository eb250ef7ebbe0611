//! Decoding a provider's wire answer back into the owner's shape.
//!
//! PLACEHOLDER being replaced by the structured-output work.

use super::validate::Issue;
use serde::Serialize;
use serde_json::Value;

/// The inverse steps of a compilation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecodePlan {}

impl DecodePlan {
    /// A plan that changes nothing.
    pub fn identity() -> Self {
        DecodePlan {}
    }

    /// Applies the plan to a wire value. A JSON-encoded field that is not valid
    /// JSON is an issue at that field's path.
    pub fn decode(&self, wire: Value) -> Result<Value, Vec<Issue>> {
        Ok(wire)
    }
}
