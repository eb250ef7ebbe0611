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

/// promptfoo's own example (examples/simple-test): each test under each
/// of its two prompts, `equals`, `icontains`, `llm-rubric` and a `$ref`
/// template converted; `is-json`, `javascript`, `python` and `similar`
/// listed as not converted. The arena lints clean.
#[test]
fn a_promptfoo_config_imports_its_tests_and_lists_what_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(
        &[
            "import",
            &fixture("promptfoo_simple_test/promptfooconfig.yaml"),
            "pirate",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("imported 6 item(s) into pirate; 4 thing(s) not mapped"),
        "{}",
        stdout(&o)
    );
    let items = json_lines(&dir.path().join("pirate/dataset.jsonl"));
    assert_eq!(items[0]["id"], "test-1-prompt-1");
    assert_eq!(
        items[0]["input"],
        "Rephrase this from English to Pirate: Yes"
    );
    assert_eq!(
        items[0]["checks"][0],
        serde_json::json!({"type": "regex", "pattern": "^Yarr$"})
    );
    assert_eq!(
        items[5]["checks"],
        serde_json::json!([
            {"type": "rubric", "rubric": "Is spoken like a pirate"},
            {"type": "icontains", "value": "arrr"}
        ])
    );
    let readme = std::fs::read_to_string(dir.path().join("pirate/README.md")).unwrap();
    for said in [
        "test-3-prompt-1: no assertion has a tribunal check (assertion `is-json` not converted",
        "assertion `javascript` not converted: tribunal has no such check; assertion `python` not converted: tribunal has no such check; assertion `similar` not converted",
    ] {
        assert!(readme.contains(said), "{said} in {readme}");
    }
    let o = tribunal(&["lint", "pirate"], dir.path());
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// A plain CSV with question and answer columns (quoted fields too).
#[test]
fn a_question_and_answer_csv_imports_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["import", &fixture("questions.csv"), "qa"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let items = json_lines(&dir.path().join("qa/dataset.jsonl"));
    assert_eq!(items.len(), 2);
    assert_eq!(items[1]["id"], "item-3");
    assert_eq!(
        items[1]["input"],
        "Name two primary colours, comma-separated."
    );
    let o = tribunal(&["run", "qa"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2 PASS, 0 FAIL, 0 ERROR"),
        "{}",
        stdout(&o)
    );
}

/// promptfoo's own CSV example (examples/simple-csv): `tests: file://
/// tests.csv`, each record's columns its vars and its `__expected` cell
/// (`icontains:bonjour`) an `icontains` check, under each of the two
/// prompts; the template expressions tribunal does not evaluate are listed.
#[test]
fn a_promptfoo_config_with_csv_tests_imports_each_record() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(
        &[
            "import",
            &fixture("promptfoo_simple_csv/promptfooconfig.yaml"),
            "translate",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("imported 8 item(s) into translate"),
        "{}",
        stdout(&o)
    );
    let items = json_lines(&dir.path().join("translate/dataset.jsonl"));
    assert_eq!(items.len(), 8);
    assert_eq!(items[7]["id"], "test-4-prompt-2");
    let input = items[7]["input"].as_str().unwrap();
    assert!(input.contains("Translate this text to Pirate"), "{input}");
    assert!(input.contains("\"I'm hungry\""), "{input}");
    assert_eq!(
        items[7]["checks"],
        serde_json::json!([{"type": "icontains", "value": "grub"}])
    );
    let readme = std::fs::read_to_string(dir.path().join("translate/README.md")).unwrap();
    assert!(
        readme
            .contains("test-1-prompt-1: `{{(style_config | load).tone}}` is a template expression"),
        "{readme}"
    );
    let o = tribunal(&["lint", "translate"], dir.path());
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// OpenAI evals' registry (evals/registry/evals/test-basic.yaml) decides
/// the checks: test-match's class is Match, so each ideal answer must
/// start the answer; the eval is found by its samples file, or named; a
/// samples file two evals score (Includes and FuzzyMatch) needs --eval.
#[test]
fn an_openai_evals_registry_class_decides_the_checks() {
    let dir = tempfile::tempdir().unwrap();
    let registry = fixture("openai_evals_test_basic.yaml");
    // Where the registry says test-match's samples are.
    std::fs::create_dir_all(dir.path().join("test_match")).unwrap();
    std::fs::copy(
        fixture("openai_evals_test_match.jsonl"),
        dir.path().join("test_match/samples.jsonl"),
    )
    .unwrap();
    let o = tribunal(
        &[
            "import",
            "test_match/samples.jsonl",
            "match",
            "--registry",
            &registry,
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("eval test-match.s1.simple-v0 (Match)"),
        "{}",
        stderr(&o)
    );
    let items = json_lines(&dir.path().join("match/dataset.jsonl"));
    assert_eq!(
        items[1]["checks"],
        serde_json::json!([{"type": "regex", "pattern": "^(?:George Washington)"}])
    );
    let o = tribunal(&["run", "match"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // Named: FuzzyMatch is icontains, and the README says it is stricter.
    let o = tribunal(
        &[
            "import",
            &fixture("openai_evals_test_match.jsonl"),
            "fuzzy",
            "--registry",
            &registry,
            "--eval",
            "test-fuzzy-match",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let items = json_lines(&dir.path().join("fuzzy/dataset.jsonl"));
    assert_eq!(
        items[0]["checks"],
        serde_json::json!([{"type": "icontains", "value": "time"}])
    );
    let readme = std::fs::read_to_string(dir.path().join("fuzzy/README.md")).unwrap();
    assert!(
        readme.contains("class is FuzzyMatch, checked with `icontains`"),
        "{readme}"
    );

    // Two evals score test_fuzzy_match/samples.jsonl: --eval is needed.
    std::fs::create_dir_all(dir.path().join("test_fuzzy_match")).unwrap();
    std::fs::copy(
        fixture("openai_evals_test_match.jsonl"),
        dir.path().join("test_fuzzy_match/samples.jsonl"),
    )
    .unwrap();
    let o = tribunal(
        &[
            "import",
            "test_fuzzy_match/samples.jsonl",
            "two",
            "--registry",
            &registry,
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2 evals score test_fuzzy_match/samples.jsonl (test-fuzzy-match.s1.simple-v0, test-includes.s1.simple-v0): name one with --eval"),
        "{}",
        stderr(&o)
    );
}
