//! Validation of decoded answers against the ORIGINAL owner schema with the
//! `jsonschema` crate (no network resolution; formats enforced).

use crate::error::SchemaError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One validation problem: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    /// JSON Pointer into the answer (`""` is the root).
    pub path: String,
    /// What is wrong (may quote the answer's content).
    pub message: String,
}

impl Issue {
    /// Creates an issue.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Issue {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Every place `schema` breaks the metaschema of its draft, each at its
/// JSON pointer in `schema` itself (not in the metaschema), in the
/// validator's order: what a lint shows where [`OwnerValidator::new`] only
/// names the first. Empty when the schema is valid or its metaschema cannot
/// be resolved (an unknown `$schema`).
pub fn schema_issues(schema: &Value) -> Vec<Issue> {
    match jsonschema::meta::validator_for(schema) {
        Ok(meta) => meta
            .iter_errors(schema)
            .map(|e| Issue::new(e.instance_path().to_string(), e.to_string()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// A compiled validator for an owner schema.
#[derive(Debug)]
pub struct OwnerValidator {
    validator: jsonschema::Validator,
}

impl OwnerValidator {
    /// Compiles `schema`. External `$ref`s cannot be resolved (no network or
    /// file resolvers are built in) and fail here, naming the problem.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|e| {
                SchemaError::new(
                    e.schema_path().to_string(),
                    format!("the schema is not usable: {e}"),
                )
            })?;
        Ok(OwnerValidator { validator })
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Every problem with `value`, in the validator's order.
    pub fn issues(&self, value: &Value) -> Vec<Issue> {
        // The boolean check is much cheaper than collecting errors; valid
        // answers are the common case.
        if self.validator.is_valid(value) {
            return Vec::new();
        }
        self.validator
            .iter_errors(value)
            .map(|e| Issue::new(e.instance_path().to_string(), e.to_string()))
            .collect()
    }
}
