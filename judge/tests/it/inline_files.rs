//! `inline_files`: files of each item in its first user message — read when
//! the arena loads, under the item's own folder, in the config hash, and
//! every file that cannot be put in a lint problem at the item's line.

use tribunal_judge::internal::arena::inline_files::{MAX_INLINE_BYTES, with_files};
use tribunal_judge::{Arena, lint};
use tribunal_testkit::arenas::arena_dir;

const GREEN: &str = r#"{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}"#;
const CHECKS: &str = r#"[{"type": "verdict_equals", "verdict": "GREEN"}]"#;
const MOCK: &str =
    r#"[{"json": {"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}}}]"#;

/// A verdict arena of items `a` and `b`, each with its folder, and
/// `inline` as its `inline_files` line.
fn review_arena(inline: &str) -> tempfile::TempDir {
    review_arena_with(inline, "")
}

/// [`review_arena`] with `verdict` added to its `[verdict]` table.
fn review_arena_with(inline: &str, verdict: &str) -> tempfile::TempDir {
    let toml = format!(
        "tools = [\"files\"]\nfiles_root = \"items\"\n{inline}\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"items/{{id}}\"\n{verdict}\n"
    );
    let dataset = format!(
        "{}\n{}\n",
        tribunal_testkit::arenas::item("a", CHECKS, MOCK),
        tribunal_testkit::arenas::item("b", CHECKS, MOCK)
    );
    let dir = arena_dir(&[
        ("dataset.jsonl", &dataset),
        ("arena.toml", &toml),
        ("green.json", GREEN),
    ]);
    for id in ["a", "b"] {
        let item = dir.path().join("items").join(id);
        std::fs::create_dir_all(&item).unwrap();
        std::fs::write(item.join("CHANGE.diff"), format!("-old {id}\n+new {id}\n")).unwrap();
        std::fs::write(item.join(format!("{id}.py")), "x = 1\n").unwrap();
    }
    dir
}

fn problems(dir: &std::path::Path) -> Vec<String> {
    lint(dir).problems.iter().map(|p| p.to_string()).collect()
}

#[test]
fn each_item_starts_with_its_own_files_after_its_input() {
    let dir = review_arena("inline_files = [\"CHANGE.diff\"]");
    let arena = Arena::load(dir.path()).unwrap();
    assert_eq!(arena.inline_files, ["CHANGE.diff"]);
    for item in &arena.items {
        let diff = format!("-old {0}\n+new {0}\n", item.id);
        assert_eq!(
            item.input,
            with_files(&format!("question {}", item.id), &[("CHANGE.diff", &diff)])
        );
        assert!(item.input.ends_with(&format!("```diff\n{diff}```")));
    }
    // Without the setting the input is the dataset's.
    let plain = Arena::load(review_arena("").path()).unwrap();
    assert_eq!(plain.items[0].input, "question a");
}

#[test]
fn the_setting_is_in_the_config_hash_only_when_set() {
    use tribunal_runtime::OutputPlan;
    use tribunal_runtime::SchemaTarget;
    let plan = OutputPlan::tool(SchemaTarget::OpenAi);
    let hash = |inline: &str| {
        let arena = Arena::load(review_arena(inline).path()).unwrap();
        tribunal_judge::internal::run::hash::config_hash(&arena, "openai-chat", "m", &plan)
    };
    assert_eq!(hash(""), hash("inline_files = []"));
    assert_ne!(hash(""), hash("inline_files = [\"CHANGE.diff\"]"));
}

#[test]
fn a_file_that_cannot_be_put_in_is_a_problem_at_its_items_line() {
    let dir = review_arena("inline_files = [\"CHANGE.diff\"]");
    std::fs::remove_file(dir.path().join("items/b/CHANGE.diff")).unwrap();
    let lines = problems(dir.path());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("dataset.jsonl:2: inline_files: item \"b\": CHANGE.diff: "),
        "{lines:?}"
    );

    // Over the size a first message takes.
    let big = "+x\n".repeat(MAX_INLINE_BYTES as usize / 3 + 1);
    std::fs::write(dir.path().join("items/b/CHANGE.diff"), big).unwrap();
    let lines = problems(dir.path());
    assert!(
        lines.len() == 1 && lines[0].contains("over the 65536 a first message takes"),
        "{lines:?}"
    );

    // Not text.
    std::fs::write(dir.path().join("items/b/CHANGE.diff"), [0xff, 0xfe, 0x00]).unwrap();
    let lines = problems(dir.path());
    assert!(
        lines.len() == 1 && lines[0].ends_with("not UTF-8 text"),
        "{lines:?}"
    );
}

#[test]
fn a_file_outside_the_items_folder_is_never_read() {
    let dir = review_arena("inline_files = [\"../b/CHANGE.diff\"]");
    let lines = problems(dir.path());
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("inline_files: item") && l.contains("../b/CHANGE.diff: ")),
        "{lines:?}"
    );
    let dir = review_arena("inline_files = [\"/etc/passwd\"]");
    assert_eq!(problems(dir.path()).len(), 2);
}

/// `example_path_from`: each item's read_file shows the first file its
/// diff changes as the example; a diff that changes no file there is a
/// lint problem at the item's line.
#[test]
fn read_file_shows_the_file_each_items_diff_changes() {
    let dir = review_arena_with("", "example_path_from = \"CHANGE.diff\"");
    for id in ["a", "b"] {
        let diff = format!("--- a/{id}.py\n+++ b/{id}.py\n@@ -1 +1 @@\n-x = 0\n+x = 1\n");
        std::fs::write(dir.path().join("items").join(id).join("CHANGE.diff"), diff).unwrap();
    }
    let arena = Arena::load(dir.path()).unwrap();
    let verdict = arena.verdict.as_ref().unwrap();
    for id in ["a", "b"] {
        let tools = verdict.toolbox_for(dir.path(), id).unwrap().specs();
        let read = tools.iter().find(|t| t.name == "read_file").unwrap();
        assert_eq!(
            read.parameters["properties"]["path"]["examples"],
            serde_json::json!([format!("{id}.py")])
        );
    }
    // No such setting: no example.
    let plain = Arena::load(review_arena("").path()).unwrap();
    let tools = plain
        .verdict
        .as_ref()
        .unwrap()
        .toolbox_for(dir.path(), "a")
        .unwrap()
        .specs();
    let read = tools.iter().find(|t| t.name == "read_file").unwrap();
    assert!(
        read.parameters["properties"]["path"]
            .get("examples")
            .is_none()
    );

    std::fs::write(dir.path().join("items/b/CHANGE.diff"), "+++ b/gone.py\n").unwrap();
    let lines = problems(dir.path());
    assert_eq!(
        lines,
        [
            "dataset.jsonl:2: verdict.example_path_from: item \"b\": CHANGE.diff changes no file that is in the item's folder"
        ]
    );
}
