//! Issue #62 point 9 (first slice): `tribunal import` makes an arena from
//! another tool's dataset that lints clean, passes in mock mode and says
//! what it could not map — tested on real files from OpenAI evals and
//! inspect_ai (tests/fixtures/import/SOURCES.md).

use crate::stand_in::{code, stderr, stdout};
use crate::{json_lines, tribunal};

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn an_openai_evals_file_becomes_a_text_arena_that_lints_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(
        &["import", &fixture("openai_evals_test_match.jsonl"), "match"],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("imported 3 item(s) into match; 0 thing(s) not mapped"),
        "{}",
        stdout(&o)
    );
    let toml = std::fs::read_to_string(dir.path().join("match/arena.toml")).unwrap();
    assert!(toml.contains("extraction = \"text\""), "{toml}");
    assert!(
        toml.contains("system = \"Complete the phrase as concisely as possible.\""),
        "{toml}"
    );
    let items = json_lines(&dir.path().join("match/dataset.jsonl"));
    assert_eq!(items[1]["input"], "The first US president was ");
    assert_eq!(
        items[1]["checks"][0],
        serde_json::json!({"type": "contains", "value": "George Washington"})
    );
    let o = tribunal(&["lint", "match"], dir.path());
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = tribunal(&["run", "match"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("3 PASS, 0 FAIL, 0 ERROR"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_inspect_ai_file_imports_and_says_what_maps_poorly() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(
        &["import", &fixture("inspect_ai_wikipedia.jsonl"), "wiki"],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let readme = std::fs::read_to_string(dir.path().join("wiki/README.md")).unwrap();
    assert!(
        readme.contains("item-1: an expected answer over 100 characters"),
        "{readme}"
    );
    assert!(stderr(&o).contains("not mapped: item-1"), "{}", stderr(&o));
    let o = tribunal(&["lint", "wiki"], dir.path());
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = tribunal(&["run", "wiki"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Nothing is written over: a second import into the folder is refused.
    let o = tribunal(
        &["import", &fixture("inspect_ai_wikipedia.jsonl"), "wiki"],
        dir.path(),
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("is not empty"), "{}", stderr(&o));
}
