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

/// Gives back the spare capacity of every array, object and string in
/// `value` (a parser grows them as it reads), for values that are kept:
/// a run's answer lives as long as its result row. Key order and content
/// are unchanged. Not recursive, so any depth is safe.
pub fn shrink_to_fit(value: &mut serde_json::Value) {
    use serde_json::Value;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::String(s) => s.shrink_to_fit(),
            Value::Array(items) => {
                items.shrink_to_fit();
                pending.extend(items.iter_mut());
            }
            Value::Object(map) => {
                // `Map` has no `shrink_to_fit`; collecting sizes it exactly.
                *map = std::mem::take(map).into_iter().collect();
                pending.extend(map.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn shrinking_keeps_the_value_and_its_key_order() {
        let text = r#"{"z": [1, {"b": "x", "a": [true, null]}], "a": "text", "m": {}}"#;
        let Ok(mut value) = parse_strict(text, &ParseLimits::default()) else {
            panic!("parses");
        };
        let before = value.clone();
        shrink_to_fit(&mut value);
        assert_eq!(value, before);
        assert_eq!(value.to_string(), before.to_string(), "key order kept");
        if let Value::Array(items) = &value["z"] {
            assert_eq!(items.capacity(), items.len());
        }
    }

    #[test]
    fn shrinking_a_deep_value_does_not_recurse() {
        let mut value = json!(0);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        shrink_to_fit(&mut value);
        // Dropping a value this deep would itself recurse; take it apart.
        let mut next = Some(value);
        while let Some(Value::Array(mut items)) = next {
            next = items.pop();
        }
    }
}
