//! Shared fixtures of the fuzz targets.
#![allow(dead_code)]

use serde_json::{Value, json};
use tribunal_runtime::SchemaTarget;

/// Every schema target.
pub const TARGETS: [SchemaTarget; 3] = [
    SchemaTarget::Plain,
    SchemaTarget::OpenAi,
    SchemaTarget::Anthropic,
];

/// The landmark schema of the structured_output arena.
pub fn landmark() -> Value {
    json!({
        "type": "object",
        "required": ["name", "year", "height_m", "sources"],
        "properties": {
            "name": {"type": "string"},
            "year": {"type": "integer"},
            "height_m": {"type": "number"},
            "sources": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        },
        "additionalProperties": false
    })
}

/// The code_review arena's GREEN and RED owner schemas.
pub fn verdict_owners() -> (Value, Value) {
    let green: Value = serde_json::from_str(include_str!(
        "../../arenas/code_review/schemas/green.json"
    ))
    .expect("green.json");
    let red: Value = serde_json::from_str(include_str!(
        "../../arenas/code_review/schemas/red.json"
    ))
    .expect("red.json");
    (green, red)
}
