//! JSON helpers of the tests: JSON Lines files, JSON without timings.

use serde_json::Value;
use std::path::Path;

/// `value` with every timing (a `*_ms` field) replaced by 0.
pub fn without_timings(mut value: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if key.ends_with("_ms") {
                        *v = Value::from(0);
                    } else {
                        walk(v);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// Every line of a JSON Lines file (a results file, a cassette) as JSON.
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
