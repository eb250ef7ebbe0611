//! Unit tests of the check rules.

use super::*;
use serde_json::json;

#[test]
fn lookup_dotted_paths_index_arrays() {
    let v = json!({"a": {"b": [10, {"c": "x"}]}});
    assert_eq!(lookup(&v, "a.b.0"), Some(&json!(10)));
    assert_eq!(lookup(&v, "$.a.b.1.c"), Some(&json!("x")));
    assert_eq!(lookup(&v, "a.b.7"), None);
    assert_eq!(lookup(&v, "a.z"), None);
    assert_eq!(lookup(&v, ""), Some(&v));
}

#[test]
fn equality_rules() {
    assert!(values_equal(&json!(300.4), &json!(300), Some(1.0)));
    assert!(!values_equal(&json!(302), &json!(300), Some(1.0)));
    assert!(values_equal(&json!(1889), &json!(1889.0), None));
    assert!(!values_equal(&json!(1890), &json!(1889), None));
    assert!(values_equal(
        &json!("  eiffel TOWER "),
        &json!("Eiffel Tower"),
        None
    ));
    assert!(!values_equal(&json!("1889"), &json!(1889), None));
    assert!(values_equal(&json!([1, 2]), &json!([1, 2]), None));
}

#[test]
fn unknown_fields_are_refused() {
    let bad = serde_json::from_value::<Check>(
        json!({"type": "json_path_equals", "path": "a", "value": 1, "tolerance": 1}),
    );
    assert!(bad.is_err());
    let ok = serde_json::from_value::<Check>(json!({"type": "json_valid", "description": "x"}));
    assert!(ok.is_ok());
}
