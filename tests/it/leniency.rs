//! Issue #62 point 6: a check does not pass a wrong value unless the arena
//! asks for leniency by name, and the report says which applied — the
//! newcomer's invoice items, through the binary.

use crate::stand_in::{code, stderr, stdout};
use crate::{json_lines, tribunal};

#[test]
fn checks_pass_wrong_values_only_with_leniency_asked_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("invoices");
    std::fs::create_dir_all(&a).unwrap();
    let items = [
        r#"{"id": "exact", "input": "x", "checks": [{"type": "json_path_equals", "path": "id", "value": "A-1001"}], "mock": [{"json": {"id": "  a-1001 "}}]}"#,
        r#"{"id": "lenient", "input": "x", "checks": [{"type": "json_path_equals", "path": "id", "value": "A-1001", "ignore_case": true, "trim": true}], "mock": [{"json": {"id": "  a-1001 "}}]}"#,
        r#"{"id": "qty", "input": "x", "checks": [{"type": "numeric_equals", "value": 5}], "mock": [{"json": {"total": 135.5, "qty": 5}}]}"#,
        r#"{"id": "qty_anywhere", "input": "x", "checks": [{"type": "numeric_equals", "value": 5, "anywhere": true}], "mock": [{"json": {"total": 135.5, "qty": 5}}]}"#,
    ];
    std::fs::write(a.join("dataset.jsonl"), items.join("\n") + "\n").unwrap();
    let o = tribunal(&["run", "invoices"], dir.path());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    let line = |id: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("exact").contains("FAIL"), "{out}");
    assert!(
        line("exact").contains(r#"id: expected "A-1001", got "  a-1001 ""#),
        "{out}"
    );
    assert!(line("qty").contains("FAIL"), "{out}");
    assert!(line("qty").contains("2 numbers found"), "{out}");
    let rows = json_lines(&dir.path().join("runs/invoices.mock.jsonl"));
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(row("lenient")["outcome"], "PASS");
    assert_eq!(
        row("lenient")["checks"][0]["detail"],
        r#"id: expected "A-1001" (ignoring case, trimmed), got "  a-1001 ""#
    );
    assert_eq!(row("qty_anywhere")["outcome"], "PASS");
    assert_eq!(
        row("qty_anywhere")["checks"][0]["detail"],
        "found 5, expected 5 (anywhere: any number counts)"
    );
}

/// The structured_output arena says the leniency its design asks for —
/// `name` ignoring case, `year` exactly — and keeps passing.
#[test]
fn structured_output_asks_for_case_on_name_only_and_passes() {
    let dataset = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/arenas/structured_output/dataset.jsonl"
    ))
    .unwrap();
    for line in dataset.lines() {
        let item: serde_json::Value = serde_json::from_str(line).unwrap();
        for check in item["checks"].as_array().unwrap() {
            match check["path"].as_str() {
                Some("name") => assert_eq!(check["ignore_case"], true, "{line}"),
                Some("year") => assert!(check.get("ignore_case").is_none(), "{line}"),
                _ => {}
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(
        &[
            "run",
            concat!(env!("CARGO_MANIFEST_DIR"), "/arenas/structured_output"),
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("15 PASS, 0 FAIL, 0 ERROR"));
}
