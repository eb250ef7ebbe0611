//! Owner schemas: compilation for each provider target, decoding of wire
//! answers, and validation against the original schema.
//!
//! [`compile`] turns an owner schema into a [`CompiledSchema`]: the wire
//! schema a provider accepts plus the [`DecodePlan`] that turns the
//! provider's answer back into the owner's shape. [`OutputSchema`] caches one
//! compilation per target and validates decoded answers against the original
//! owner schema. [`compile_embedded_in`] compiles an owner schema as one field
//! of a larger envelope (the GREEN/RED verdict), sharing a [`WireBudget`].

mod compile;
mod decode;
mod fit;
mod keywords;
mod limits;
mod lower;
mod merge;
mod refs;
mod validate;

pub use compile::{
    CompiledSchema, MAX_SCHEMA_DEPTH, compile, compile_embedded, compile_embedded_in,
};
pub use decode::{Branch, DecodePlan, Field, Step};
pub use fit::WRAPPER_KEY;
pub use limits::{WireBudget, WireLimits, WireStats};
pub use refs::{contains_ref, rebase_local_refs};
pub use validate::{Issue, OwnerValidator, schema_issues};

use crate::error::SchemaError;
use crate::output::SchemaTarget;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// An owner schema with its validator and, per target, its compiled wire form.
///
/// Compilation happens at most once per target and is cached; share one
/// `OutputSchema` (in an `Arc`) across all runs that use the schema.
#[derive(Debug)]
pub struct OutputSchema {
    name: String,
    owner: Value,
    validator: OwnerValidator,
    openai: OnceLock<Result<Arc<CompiledSchema>, SchemaError>>,
    anthropic: OnceLock<Result<Arc<CompiledSchema>, SchemaError>>,
    plain: OnceLock<Result<Arc<CompiledSchema>, SchemaError>>,
}

impl OutputSchema {
    /// Loads an owner schema. `name` becomes the wire format name (sanitised).
    /// Fails on a schema the validator cannot compile (malformed, external `$ref`).
    pub fn new(name: &str, owner: Value) -> Result<Self, SchemaError> {
        let validator = OwnerValidator::new(&owner)?;
        Ok(OutputSchema {
            name: sanitize_name(name),
            owner,
            validator,
            openai: OnceLock::new(),
            anthropic: OnceLock::new(),
            plain: OnceLock::new(),
        })
    }

    /// The owner schema of a Rust type, derived with `schemars`.
    pub fn for_type<T: schemars::JsonSchema>() -> Result<Self, SchemaError> {
        let schema = schemars::schema_for!(T);
        let value = serde_json::to_value(&schema).map_err(|e| {
            SchemaError::new("", format!("cannot serialise the derived schema: {e}"))
        })?;
        OutputSchema::new(&T::schema_name(), value)
    }

    /// The sanitised format name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The original owner schema.
    pub fn owner(&self) -> &Value {
        &self.owner
    }

    #[doc(hidden)] // for tribunal's own crates; no promise
    /// The validator of the original owner schema.
    pub fn validator(&self) -> &OwnerValidator {
        &self.validator
    }

    #[doc(hidden)] // for tribunal's own crates; no promise
    /// The schema compiled for `target` (cached).
    pub fn compiled(&self, target: SchemaTarget) -> Result<Arc<CompiledSchema>, SchemaError> {
        let cell = match target {
            SchemaTarget::Plain => &self.plain,
            SchemaTarget::OpenAi => &self.openai,
            SchemaTarget::Anthropic => &self.anthropic,
        };
        cell.get_or_init(|| compile(&self.owner, target).map(Arc::new))
            .clone()
    }

    /// Whether an owner-shaped answer must be a JSON object.
    pub fn root_is_object(&self) -> bool {
        root_is_object(&self.owner)
    }
}

/// Whether `schema` only admits objects at its root.
pub fn root_is_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => !ts.is_empty() && ts.iter().all(|t| t == "object"),
        _ => {
            schema.get("properties").is_some()
                && schema.get("anyOf").is_none()
                && schema.get("oneOf").is_none()
        }
    }
}

/// Sanitises a tool or format name to `^[a-zA-Z0-9_-]{1,64}$`: other
/// characters become `_`, the result is cut to 64 characters, and an empty
/// name becomes `output`.
pub fn sanitize_name(name: &str) -> String {
    let s: String = crate::text::clip(name, crate::text::Limit::Chars(64))
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "output".to_string()
    } else {
        s
    }
}
