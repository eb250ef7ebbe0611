//! Issue #62 point 1: an arena whose answer is text (`extraction =
//! "text"`): no schema, text checks, mock `{"text": …}` turns — the
//! commands of docs/first-arena.md "An arena whose answer is text".

use crate::stand_in::{code, stderr, stdout};
use crate::{json_lines, tribunal};

/// The arena of the guide, with `items` as its dataset.
fn text_arena(dir: &std::path::Path, items: &[&str]) {
    let a = dir.join("capitals");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("arena.toml"), "extraction = \"text\"\n").unwrap();
    std::fs::write(a.join("dataset.jsonl"), items.join("\n") + "\n").unwrap();
}

#[test]
fn a_text_answer_passes_text_checks_and_is_stored_as_text() {
    let dir = tempfile::tempdir().unwrap();
    text_arena(
        dir.path(),
        &[
            r#"{"id": "fr", "input": "What is the capital of France?", "checks": [{"type": "icontains", "value": "paris"}], "mock": [{"text": "The capital is Paris."}]}"#,
            r#"{"id": "jp", "input": "What is the capital of Japan?", "checks": [{"type": "regex", "pattern": "\\bTokyo\\b"}], "mock": [{"text": "Kyoto."}]}"#,
        ],
    );
    let o = tribunal(&["lint", "capitals"], dir.path());
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = tribunal(&["run", "capitals"], dir.path());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("1 PASS, 1 FAIL, 0 ERROR"), "{out}");
    // Rows are written as runs finish: found by id.
    let rows = json_lines(&dir.path().join("runs/capitals.mock.jsonl"));
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(row("fr")["outcome"], "PASS");
    assert_eq!(row("fr")["answer"], "The capital is Paris.");
    assert_eq!(row("jp")["outcome"], "FAIL");
    assert_eq!(row("jp")["answer"], "Kyoto.");
}

/// An empty reply is no answer: refused, a repair asked for as plain text
/// (here the script has none, so the cause is said).
#[test]
fn an_empty_text_answer_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    text_arena(
        dir.path(),
        &[
            r#"{"id": "fr", "input": "Capital of France?", "checks": [{"type": "contains", "value": "Paris"}], "mock": [{"text": "  "}]}"#,
        ],
    );
    let o = tribunal(&["run", "capitals"], dir.path());
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("no_json: the answer is empty"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_text_arena_with_a_schema_is_a_lint_problem() {
    let dir = tempfile::tempdir().unwrap();
    text_arena(
        dir.path(),
        &[
            r#"{"id": "fr", "input": "x", "checks": [{"type": "contains", "value": "Paris"}], "mock": [{"text": "Paris"}]}"#,
        ],
    );
    std::fs::write(
        dir.path().join("capitals/arena.toml"),
        "extraction = \"text\"\nschema = { type = \"string\" }\n",
    )
    .unwrap();
    let o = tribunal(&["lint", "capitals"], dir.path());
    assert_eq!(code(&o), 2);
    assert!(
        stdout(&o).contains("capitals/arena.toml: schema: the answer is text"),
        "{}",
        stdout(&o)
    );
}
