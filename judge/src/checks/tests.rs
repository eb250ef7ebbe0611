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
    // Integers compare exactly, beyond f64 precision too.
    assert!(!values_equal(
        &json!(9_007_199_254_740_993u64),
        &json!(9_007_199_254_740_992u64),
        None
    ));
    assert!(values_equal(&json!(-7), &json!(-7), None));
    // Fractions compare as numbers; within a tolerance, by distance.
    assert!(values_equal(&json!(1.5), &json!(1.5), None));
    assert!(!values_equal(&json!(1.5), &json!(1.25), None));
    assert!(values_equal(&json!(1.5), &json!(1.75), Some(0.25)));
    assert!(!values_equal(&json!(1.5), &json!(1.8), Some(0.25)));
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

fn report_with_calls(calls: &[(&str, bool)]) -> RunReport {
    RunReport {
        outcome: tribunal_runtime::RunOutcome::Ok { value: json!({}) },
        repair_used: false,
        extracted_from: None,
        usage: Default::default(),
        tool_calls: calls
            .iter()
            .map(|(name, ok)| tribunal_runtime::report::ToolCallRecord {
                name: name.to_string(),
                arguments: "{}".into(),
                ok: *ok,
                duration_ms: 0.0,
                repeated: false,
            })
            .collect(),
        turns: 1,
        wall_ms: 0.0,
        finalized_after: None,
        backend_failure: None,
    }
}

/// A check from its spec, with nothing compiled (no schema, no pattern).
fn check(spec: Value) -> ItemCheck {
    ItemCheck {
        check: serde_json::from_value(spec.clone()).unwrap(),
        spec,
        schema: None,
        regex: None,
    }
}

#[test]
fn tool_used_counts_only_successful_calls() {
    let once = [check(json!({"type": "tool_used", "name": "search"}))];
    let twice = [check(
        json!({"type": "tool_used", "name": "search", "min": 2}),
    )];
    let answer = json!({});

    // Every call failed (e.g. invalid arguments): the tool was not used.
    let failed = report_with_calls(&[("search", false), ("search", false)]);
    let r = score(&once, Some(&answer), &failed);
    assert!(!r[0].ok);
    assert_eq!(
        r[0].detail,
        "search called 0 time(s) successfully (2 failed), at least 1 required"
    );

    let mixed = report_with_calls(&[("search", false), ("search", true), ("grep", true)]);
    assert!(score(&once, Some(&answer), &mixed)[0].ok);
    let r = score(&twice, Some(&answer), &mixed);
    assert!(!r[0].ok, "{}", r[0].detail);

    let good = report_with_calls(&[("search", true), ("search", true)]);
    let r = score(&twice, Some(&answer), &good);
    assert!(r[0].ok);
    assert_eq!(r[0].detail, "search called 2 time(s), at least 2 required");
}

#[test]
fn contains_and_not_contains_ignore_case() {
    let checks = [
        check(json!({"type": "contains", "value": "EIFFEL"})),
        check(json!({"type": "contains", "value": "london"})),
        check(json!({"type": "not_contains", "value": "PARIS"})),
        check(json!({"type": "not_contains", "value": "london"})),
    ];
    let answer = json!({"name": "Eiffel Tower", "city": "Paris"});
    let report = report_with_calls(&[]);
    let ok: Vec<bool> = score(&checks, Some(&answer), &report)
        .iter()
        .map(|r| r.ok)
        .collect();
    assert_eq!(ok, [true, false, false, true]);
}
