//! Compiling an owner schema into a provider's wire schema plus a decode plan.
//!
//! PLACEHOLDER being replaced by the structured-output work: today every target
//! gets the owner schema unchanged and an identity plan.

use super::decode::DecodePlan;
use crate::backend::SchemaTarget;
use crate::error::SchemaError;
use serde::Serialize;
use serde_json::Value;

/// The result of compiling an owner schema for one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompiledSchema {
    /// The schema sent to the provider.
    pub wire: std::sync::Arc<Value>,
    /// How to turn a wire answer back into an owner-shaped value.
    pub plan: DecodePlan,
    /// True when the whole answer travels as one JSON-encoded string.
    pub fallback: bool,
    /// What was dropped or moved, one line each.
    pub notes: Vec<String>,
}

/// Compiles `owner` for `target`.
pub fn compile(owner: &Value, target: SchemaTarget) -> Result<CompiledSchema, SchemaError> {
    let _ = target;
    Ok(CompiledSchema {
        wire: std::sync::Arc::new(owner.clone()),
        plan: DecodePlan::identity(),
        fallback: false,
        notes: Vec::new(),
    })
}
