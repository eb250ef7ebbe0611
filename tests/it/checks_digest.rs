//! Issue #62 point 7: rows say which checks scored them (`checks_digest`),
//! and `compare` says "the checks changed" — not "regression" — where they
//! did; a model's change under the same checks is still a regression.

use crate::stand_in::{code, stderr, stdout};
use crate::{json_lines, tribunal};

fn write_item(dir: &std::path::Path, value: &str, answer: &str) {
    let a = dir.join("invoices");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(
        a.join("dataset.jsonl"),
        format!(
            r#"{{"id": "i1", "input": "x", "checks": [{{"type": "json_path_equals", "path": "id", "value": "{value}"}}], "mock": [{{"json": {{"id": "{answer}"}}}}]}}"#
        ) + "\n",
    )
    .unwrap();
}

#[test]
fn compare_says_the_checks_changed_instead_of_regression() {
    let dir = tempfile::tempdir().unwrap();
    write_item(dir.path(), "A-1001", "A-1001");
    let o = tribunal(&["run", "invoices", "--out", "base.jsonl"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The check is changed (a stricter id); the model's answer is not.
    write_item(dir.path(), "A-1002", "A-1001");
    let o = tribunal(&["run", "invoices", "--out", "new.jsonl"], dir.path());
    assert_eq!(code(&o), 1);
    let (base, new) = (
        json_lines(&dir.path().join("base.jsonl")),
        json_lines(&dir.path().join("new.jsonl")),
    );
    let digest =
        |rows: &[serde_json::Value]| rows[0]["checks_digest"].as_str().unwrap().to_string();
    assert_eq!(digest(&base).len(), 16);
    assert_ne!(digest(&base), digest(&new));
    assert_eq!(base[0]["config_hash"], new[0]["config_hash"]);

    let o = tribunal(&["compare", "base.jsonl", "new.jsonl"], dir.path());
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "not a regression: {out}{}", stderr(&o));
    assert!(
        out.contains("the checks changed: i1 #0: PASS → FAIL"),
        "{out}"
    );
    assert!(out.contains("0 regression(s)"), "{out}");
    assert!(
        out.contains("1 scored by changed checks (not regressions)"),
        "{out}"
    );
    assert!(!out.contains("REGRESSION"), "{out}");
    // Nor does the paired test count a pair scored by other checks.
    let o = tribunal(
        &["compare", "base.jsonl", "new.jsonl", "--report", "json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["paired"]["items"], 0, "{json}");
    assert_eq!(json["paired"]["worse"], 0, "{json}");
    assert_eq!(json["changes"][0]["kind"], "checks_changed", "{json}");

    // The same checks, another answer: a regression, as before.
    write_item(dir.path(), "A-1001", "A-1009");
    let o = tribunal(&["run", "invoices", "--out", "worse.jsonl"], dir.path());
    assert_eq!(code(&o), 1);
    let o = tribunal(&["compare", "base.jsonl", "worse.jsonl"], dir.path());
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("REGRESSION"), "{}", stdout(&o));
}
