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
    // Strings exactly, unless leniency is asked for by name.
    assert!(!values_equal(
        &json!("  eiffel TOWER "),
        &json!("Eiffel Tower"),
        None
    ));
    let both = super::Leniency {
        ignore_case: true,
        trim: true,
    };
    assert!(super::values_equal_with(
        &json!("  eiffel TOWER "),
        &json!("Eiffel Tower"),
        None,
        both
    ));
    let case_only = super::Leniency {
        ignore_case: true,
        trim: false,
    };
    assert!(!super::values_equal_with(
        &json!("  eiffel TOWER "),
        &json!("Eiffel Tower"),
        None,
        case_only
    ));
    assert_eq!(both.said(), " (ignoring case, trimmed)");
    assert_eq!(super::Leniency::default().said(), "");
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
    let mut report = RunReport::answered(json!({}));
    report.tool_calls = calls
        .iter()
        .map(
            |(name, ok)| tribunal_runtime::internal::report::ToolCallRecord {
                name: name.to_string(),
                arguments: "{}".into(),
                ok: *ok,
                duration_ms: 0.0,
                repeated: false,
                from_text: false,
            },
        )
        .collect();
    report
}

/// A check from its spec, with nothing compiled (no schema, no pattern).
fn check(spec: Value) -> ItemCheck {
    ItemCheck {
        check: serde_json::from_value(spec.clone()).unwrap(),
        spec: std::sync::Arc::new(spec),
        schema: None,
        regex: None,
        judge_mock: None,
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

/// A report whose tool calls are `calls` (name, arguments), all successful.
fn report_with_args(calls: &[(&str, &str)]) -> RunReport {
    let mut report = report_with_calls(&[]);
    report.tool_calls = calls
        .iter()
        .map(
            |(name, args)| tribunal_runtime::internal::report::ToolCallRecord {
                name: name.to_string(),
                arguments: args.to_string(),
                ok: true,
                duration_ms: 0.0,
                repeated: false,
                from_text: false,
            },
        )
        .collect();
    report
}

/// Whether each check holds for `answer` and `report`, in order.
fn holds(checks: &[ItemCheck], answer: Option<&Value>, report: &RunReport) -> Vec<bool> {
    score(checks, answer, report).iter().map(|r| r.ok).collect()
}

#[test]
fn icontains_and_iregex_ignore_case_and_iregex_reads_value() {
    let mut iregex = check(json!({"type": "iregex", "value": "^the eiffel tower"}));
    iregex.regex = Some(
        regex::RegexBuilder::new("^the eiffel tower")
            .case_insensitive(true)
            .build()
            .unwrap(),
    );
    let checks = [
        check(json!({"type": "icontains", "value": "TOWER"})),
        check(json!({"type": "icontains", "value": "bridge"})),
        iregex,
    ];
    let answer = json!("The Eiffel Tower, Paris.");
    assert_eq!(
        holds(&checks, Some(&answer), &report_with_calls(&[])),
        [true, false, true]
    );
}

#[test]
fn numeric_equals_finds_numbers_in_json_and_in_text() {
    let c = |value: f64, tol: Option<f64>| {
        let mut spec = json!({"type": "numeric_equals", "value": value, "anywhere": true});
        if let Some(t) = tol {
            spec["tol"] = json!(t);
        }
        check(spec)
    };
    let report = report_with_calls(&[]);
    let text = json!("It opened in 1889, stands 330 m tall, cost 7,799,401.50 francs; -3 or 2e3.");
    let checks = [
        c(1889.0, None),
        c(330.0, None),
        c(7_799_401.5, None),
        c(-3.0, None),
        c(2000.0, None),
        c(331.0, None),
        c(331.0, Some(1.0)),
        c(1.5, Some(0.1)),
    ];
    assert_eq!(
        holds(&checks, Some(&text), &report),
        [true, true, true, true, true, false, true, false]
    );
    // A JSON answer: its numbers and the numbers inside its strings.
    let answer = json!({"year": 1889, "note": "about 300.4 m", "list": [1, 2]});
    assert_eq!(
        holds(
            &[c(1889.0, None), c(300.4, None), c(2.0, None), c(5.0, None)],
            Some(&answer),
            &report
        ),
        [true, true, true, false]
    );
    // A dash after a letter or digit is not a sign: 2024-05 holds 2024
    // and 5, not -5; "v-2" holds 2.
    assert_eq!(
        text::numbers_in_text("on 2024-05, v-2, x -7"),
        [2024.0, 5.0, 2.0, -7.0]
    );
    // A list written with commas and no spaces is thousands only in
    // groups of three: "1,22" is 1 and 22.
    assert_eq!(text::numbers_in_text("1,22 and 1,222"), [1.0, 22.0, 1222.0]);
    let r = score(&[c(5.0, None)], Some(&answer), &report);
    assert_eq!(r[0].detail, "no number within 5 among 4 found");
}

/// Issue #62 point 6: without `anywhere`, the answer's one number is the
/// one: `{"total": 135.5, "qty": 5}` is not the answer 5.
#[test]
fn numeric_equals_without_anywhere_wants_the_one_number() {
    let report = report_with_calls(&[]);
    let five = check(json!({"type": "numeric_equals", "value": 5}));
    let r = score(
        std::slice::from_ref(&five),
        Some(&json!({"total": 135.5, "qty": 5})),
        &report,
    );
    assert!(!r[0].ok);
    assert_eq!(
        r[0].detail,
        "2 numbers found, expected the one number 5 (`anywhere: true` lets any of them count)"
    );
    assert_eq!(
        holds(std::slice::from_ref(&five), Some(&json!(5)), &report),
        [true]
    );
    assert_eq!(
        holds(
            std::slice::from_ref(&five),
            Some(&json!("It is 5.")),
            &report
        ),
        [true]
    );
    assert_eq!(holds(&[five], Some(&json!("none")), &report), [false]);
    let anywhere = check(json!({"type": "numeric_equals", "value": 5, "anywhere": true}));
    let r = score(
        &[anywhere],
        Some(&json!({"total": 135.5, "qty": 5})),
        &report,
    );
    assert!(r[0].ok);
    assert_eq!(
        r[0].detail,
        "found 5, expected 5 (anywhere: any number counts)"
    );
}

#[test]
fn sentence_count_ends_sentences_only_before_space_or_end() {
    assert_eq!(text::sentences_in(""), 0);
    assert_eq!(text::sentences_in("   "), 0);
    assert_eq!(text::sentences_in("No end punctuation"), 1);
    assert_eq!(text::sentences_in("Pi is 3.14. It is irrational!"), 2);
    assert_eq!(text::sentences_in("See example.com for more."), 1);
    assert_eq!(text::sentences_in("Wait... what?! Really."), 3);
    assert_eq!(text::sentences_in("He said \"stop.\" Then left."), 2);
    assert_eq!(text::sentences_in("One. . Two."), 2);
    assert_eq!(text::sentences_in("Version 2.0 is out…"), 1);

    let c = |min: Option<u32>, max: Option<u32>| {
        check(json!({"type": "sentence_count", "min": min, "max": max}))
    };
    // `null` bounds parse as absent, as a dataset could write them.
    let report = report_with_calls(&[]);
    let two = json!("It is tall. It is old.");
    assert_eq!(
        holds(
            &[
                c(Some(2), Some(2)),
                c(Some(3), None),
                c(None, Some(1)),
                c(Some(1), Some(5))
            ],
            Some(&two),
            &report
        ),
        [true, false, false, true]
    );
    // A JSON answer counts the sentences of its strings, not its keys.
    let answer = json!({"summary.": "One. Two.", "items": ["Three."], "n": 3.5});
    assert_eq!(text::sentence_count(&answer), 3);
    let r = score(&[c(Some(4), None)], Some(&answer), &report);
    assert_eq!(r[0].detail, "3 sentence(s), at least 4 required");
}

#[test]
fn call_total_and_presence_checks_count_every_call() {
    let report = report_with_calls(&[("search", false), ("search", true), ("read_file", true)]);
    let checks = [
        check(json!({"type": "tool_not_used", "name": "search"})),
        check(json!({"type": "tool_not_used", "name": "grep"})),
        check(json!({"type": "no_tool"})),
        check(json!({"type": "min_tool_calls", "value": 3})),
        check(json!({"type": "min_tool_calls", "value": 4})),
        check(json!({"type": "max_tool_calls", "value": 3})),
        check(json!({"type": "max_tool_calls", "value": 2})),
        check(json!({"type": "call_counts", "counts": {"search": 2, "read_file": 1}})),
        check(json!({"type": "call_counts", "counts": {"search": 1}})),
        check(json!({"type": "call_counts", "counts": {"grep": 0}})),
    ];
    // No answer: the trajectory checks are still scored.
    assert_eq!(
        holds(&checks, None, &report),
        [
            false, true, false, true, false, true, false, true, false, true
        ]
    );
    assert_eq!(
        holds(
            &[check(json!({"type": "no_tool"}))],
            None,
            &report_with_calls(&[])
        ),
        [true]
    );
    let r = score(&checks[8..9], None, &report);
    assert_eq!(r[0].detail, "calls: search 2 (expected 1)");
    let r = score(&checks[2..3], None, &report);
    assert_eq!(r[0].detail, "3 tool call(s): search, search, read_file");
}

#[test]
fn tool_sequence_modes() {
    let seq = |tools: &[&str], mode: &str| {
        check(json!({"type": "tool_sequence", "tools": tools, "mode": mode}))
    };
    let report = report_with_calls(&[("search", true), ("read_file", true), ("search", true)]);
    let cases = [
        (seq(&["search", "read_file", "search"], "strict"), true),
        (seq(&["search", "search", "read_file"], "strict"), false),
        (seq(&["search", "read_file"], "strict"), false),
        (seq(&["search", "search", "read_file"], "unordered"), true),
        (seq(&["search", "read_file"], "unordered"), false),
        (
            seq(&["search", "read_file", "search", "grep"], "subset"),
            true,
        ),
        (seq(&["search", "read_file"], "subset"), false),
        (seq(&["read_file", "search"], "superset"), true),
        (seq(&["search", "search", "search"], "superset"), false),
        (seq(&[], "subset"), false),
        (seq(&[], "superset"), true),
    ];
    for (c, want) in &cases {
        let r = score(std::slice::from_ref(c), None, &report);
        assert_eq!(r[0].ok, *want, "{}: {}", c.spec, r[0].detail);
    }
    // `mode` defaults to strict.
    let strict = check(json!({"type": "tool_sequence", "tools": ["search", "read_file"]}));
    let r = score(&[strict], None, &report);
    assert!(!r[0].ok);
    assert_eq!(
        r[0].detail,
        "called [search, read_file, search], expected [search, read_file] (strict)"
    );
}

#[test]
fn tool_args_match_reads_any_call_of_the_tool() {
    let report = report_with_args(&[
        ("read_file", r#"{"path": "README.md"}"#),
        (
            "read_file",
            r#"{"path": "src/lib.rs", "range": {"start": 10}}"#,
        ),
        ("grep", r#"{"path": "CHANGE.diff"}"#),
        ("read_file", "not json"),
    ]);
    let m = |name: &str, path: &str, value: Value| {
        check(json!({"type": "tool_args_match", "name": name, "path": path, "value": value}))
    };
    let cases = [
        m("read_file", "path", json!("src/lib.rs")),
        m("read_file", "path", json!("SRC/LIB.RS")),
        m("read_file", "range.start", json!(10)),
        m("read_file", "path", json!("CHANGE.diff")),
        m("search", "query", json!("x")),
    ];
    // Strings exactly (the `json_path_equals` rules, no leniency).
    assert_eq!(
        holds(&cases, None, &report),
        [true, false, true, false, false]
    );
    let r = score(&cases[3..], None, &report);
    assert_eq!(
        r[0].detail,
        "read_file called 3 time(s), none with path = \"CHANGE.diff\" (got \"README.md\", \"src/lib.rs\", (arguments not JSON))"
    );
    assert_eq!(r[1].detail, "search never called; expected query = \"x\"");
    let tol = check(
        json!({"type": "tool_args_match", "name": "read_file", "path": "range.start", "value": 11, "tol": 1}),
    );
    assert_eq!(holds(&[tol], None, &report), [true]);
}

#[test]
fn the_markdown_table_lists_every_kind_with_its_fields() {
    let table = CheckKind::markdown_table();
    assert_eq!(table.lines().count(), CheckKind::ALL.len() + 2);
    for kind in CheckKind::ALL {
        assert!(table.contains(&format!("| `{kind}` |")), "{kind}");
    }
    assert!(table.contains("| `tool_args_match` | `name, path, value, [tol]` |"));
    assert!(table.contains("| `no_tool` | — |"));
}
