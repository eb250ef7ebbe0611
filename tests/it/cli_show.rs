//! Issue #62 point 4: `tribunal show RESULTS ITEM` — one run in the
//! terminal: its messages, tool calls with their results clipped, the
//! answer, each check and why; and a failing run's report names it.

use crate::stand_in::{code, stderr, stdout};
use crate::tribunal;

const WRONG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/wrong_answers");

#[test]
fn show_prints_one_run_with_its_conversation_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["run", WRONG, "--transcripts", "tr"], dir.path());
    assert_eq!(code(&o), 1);
    // The report points at a failing run to read.
    let err = stderr(&o);
    let hint = err
        .lines()
        .find(|l| l.contains("read one up close"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        hint.contains("tribunal show runs/wrong_answers.mock.jsonl wrong_value --transcripts tr"),
        "{hint}"
    );
    let o = tribunal(
        &[
            "show",
            "runs/wrong_answers.mock.jsonl",
            "wrong_value",
            "--transcripts",
            "tr",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    for part in [
        "wrong_value #0 · FAIL · mock scripted",
        "\nsystem:\n",
        "\nuser:\n",
        "  → search(",
        "\ntool result:\n",
        "\nanswer:\n",
        "\nchecks:\n",
        "  FAIL json_path_equals: year: expected",
    ] {
        assert!(out.contains(part), "{part:?} in:\n{out}");
    }
    // Without the transcripts: the row's tool calls, and how to keep more.
    let o = tribunal(
        &["show", "runs/wrong_answers.mock.jsonl", "wrong_value#0"],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("the conversation was not kept"),
        "{}",
        stdout(&o)
    );
    // An unknown item names the ones there are.
    let o = tribunal(
        &["show", "runs/wrong_answers.mock.jsonl", "nope"],
        dir.path(),
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no run of item \"nope\"; its items: control_right, wrong_value"),
        "{}",
        stderr(&o)
    );
}

/// A tool result longer than the screen is clipped, and says so.
#[test]
fn show_clips_a_long_tool_result() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("long");
    std::fs::create_dir_all(&a).unwrap();
    let text = "word ".repeat(400);
    std::fs::write(
        a.join("corpus.json"),
        serde_json::json!([{"id": "p", "title": "Long", "text": text}]).to_string(),
    )
    .unwrap();
    std::fs::write(
        a.join("arena.toml"),
        "tools = [\"search\"]\ncorpus = \"corpus.json\"\nextraction = \"text\"\n",
    )
    .unwrap();
    std::fs::write(
        a.join("dataset.jsonl"),
        r#"{"id": "q", "input": "x", "checks": [{"type": "contains", "value": "word"}], "mock": [{"tool_calls": [{"name": "search", "arguments": {"query": "word"}}]}, {"text": "word"}]}"#,
    )
    .unwrap();
    let o = tribunal(&["run", "long", "--transcripts", "tr"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = tribunal(
        &["show", "runs/long.mock.jsonl", "q", "--transcripts", "tr"],
        dir.path(),
    );
    let out = stdout(&o);
    assert!(out.contains(" … [clipped]"), "{out}");
    assert!(out.len() < 2000, "{out}");
}
