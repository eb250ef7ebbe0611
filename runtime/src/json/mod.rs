//! JSON handling for model output: a strict parser (duplicate keys, depth,
//! number range) and the extraction of a JSON value from free text.

mod extract;
mod parse;

pub use extract::{ExtractedFrom, Extraction, ExtractionError, ExtractionMode, extract};
pub use parse::{MAX_DEPTH_CEILING, ParseError, ParseLimits, parse_strict};

/// `value` with the keys of every object sorted, for comparing values whose
/// key order differs. Recursive: call it on values parsed with a depth
/// limit ([`parse_strict`]).
pub fn sorted_keys(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}
