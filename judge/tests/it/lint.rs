//! Lint: every shipped arena is clean (one snapshot per arena), and each
//! kind of problem is reported with file:line.

use crate::support::{arena_dir, arenas_dir};
use tribunal_judge::{JudgeError, lint};

#[test]
fn every_arena_lints_clean() {
    bind_snapshots!();
    insta::glob!(arenas_dir(), "*/dataset.jsonl", |path| {
        let dir = path.parent().unwrap();
        let report = lint(dir);
        let lines: Vec<String> = report.problems.iter().map(|p| p.to_string()).collect();
        insta::assert_json_snapshot!(serde_json::json!({
            "arena": report.arena,
            "items": report.items,
            "problems": lines,
        }));
    });
}

fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let dir = arena_dir(files);
    lint(dir.path())
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect()
}

const OK_CHECKS: &str = r#"[{"type": "json_valid"}]"#;

#[test]
fn a_clean_minimal_arena_has_no_problem() {
    let line = crate::support::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
    assert_eq!(problems(&[("dataset.jsonl", &line)]), Vec::<String>::new());
}

#[test]
fn each_problem_names_its_file_and_line() {
    let dataset = [
        r#"{"id": "a", "input": "x", "checks": [{"type": "json_vaild"}]}"#,
        r#"{"id": "b", "input": "x", "checks": [{"type": "json_path_equals", "value": 1}]}"#,
        r#"{"id": "c", "input": 7, "checks": [{"type": "tool_used", "name": 3}]}"#,
        r#"{"id": "d", "input": "x", "checks": [{"type": "json_schema", "schema": {"type": "nope"}}]}"#,
        r#"{"id": "a", "input": "x", "checks": [{"type": "json_valid"}]}"#,
        r#"{"id": "e", "input": "x", "checks": [{"type": "json_valid"}], "mock": [{"jsn": {}}]}"#,
        r#"{"id": "f", "input": "x", "checks": [{"type": "regex", "pattern": "("}]}"#,
        r#"{"id": "g", "input": "x", "checks": [{"type": "json_path_equals", "path": "a", "value": 1, "tolerance": 1}]}"#,
        r#"{"id": "h", "input": "x", "checks": [{"type": "tool_used", "name": "search"}]}"#,
        r#"{"id": "i", "input": "x", "checks": [{"type": "json_schema"}]}"#,
        r#"{"id": "j", "input": "x""#,
        r#"{"input": "x", "checks": []}"#,
    ]
    .join("\n");
    let found = problems(&[("dataset.jsonl", &dataset)]);
    let expect_prefixes = [
        "dataset.jsonl:1: checks[0]: unknown check type \"json_vaild\"",
        "dataset.jsonl:2: checks[0]: json_path_equals: missing field `path`",
        "dataset.jsonl:3: input: expected a string, found a number",
        "dataset.jsonl:3: checks[0]: tool_used: invalid type: integer `3`",
        "dataset.jsonl:4: checks[0]: json_schema: invalid schema",
        "dataset.jsonl:5: duplicate id \"a\" (first at line 1)",
        "dataset.jsonl:6: mock[0]: malformed script turn: unknown field `jsn`",
        "dataset.jsonl:7: checks[0]: regex: invalid pattern",
        "dataset.jsonl:8: checks[0]: json_path_equals: unknown field `tolerance`",
        "dataset.jsonl:9: checks[0]: tool_used: the arena does not offer a tool named \"search\"",
        "dataset.jsonl:10: checks[0]: json_schema: no inline schema and the arena has none",
        "dataset.jsonl:11: invalid JSON",
        "dataset.jsonl:12: id: missing",
        "dataset.jsonl:12: checks: empty",
    ];
    for prefix in expect_prefixes {
        assert!(
            found.iter().any(|p| p.starts_with(prefix)),
            "no problem starting with {prefix:?} in:\n{}",
            found.join("\n")
        );
    }
    assert_eq!(found.len(), expect_prefixes.len(), "{}", found.join("\n"));
}

#[test]
fn arena_toml_and_corpus_problems_have_lines() {
    let line = crate::support::item("a", OK_CHECKS, "[]");
    let found = problems(&[
        ("dataset.jsonl", &line),
        ("arena.toml", "name = \"x\"\n\n[budget]\nmax_turn = 3\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("arena.toml:4: unknown field `max_turn`"),
        "{found:?}"
    );

    // A deadline that is not a positive, representable number of seconds is
    // a problem at its line, not a silent fallback to the default.
    for bad in ["0", "-5", "nan", "inf", "1e300", "\"soon\""] {
        let toml = format!("name = \"x\"\n[budget]\n\ndeadline_secs = {bad}\n");
        let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &toml)]);
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert!(found[0].starts_with("arena.toml:4: "), "{bad}: {found:?}");
        if bad != "\"soon\"" {
            assert!(
                found[0].contains("deadline_secs must be a positive"),
                "{found:?}"
            );
        }
    }
    // The name names files: a path in it is a problem, not a way out of
    // the results folder.
    for bad in ["../../escaped", "a/b", ".hidden", "", "x y"] {
        let toml = format!("description = \"d\"\nname = {bad:?}\n");
        let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &toml)]);
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert!(
            found[0].starts_with("arena.toml:2: name "),
            "{bad}: {found:?}"
        );
    }
    let toml = "name = \"my-arena_2.v1\"\n";
    assert!(problems(&[("dataset.jsonl", &line), ("arena.toml", toml)]).is_empty());

    // The file tools stay inside the arena folder.
    for root in ["..", "/", "../.."] {
        let toml = format!("tools = [\"files\"]\nfiles_root = {root:?}\n");
        let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &toml)]);
        assert_eq!(found.len(), 1, "{root}: {found:?}");
        assert!(found[0].contains("outside the arena folder"), "{found:?}");
    }

    let toml = "[budget]\ndeadline_secs = 2\n";
    assert!(problems(&[("dataset.jsonl", &line), ("arena.toml", toml)]).is_empty());

    let found = problems(&[
        ("dataset.jsonl", &line),
        ("corpus.json", "[\n{\"title\": 1}\n]"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("corpus.json:2: "), "{found:?}");

    let found = problems(&[
        ("dataset.jsonl", &line),
        ("arena.toml", "tools = [\"web\"]\n"),
    ]);
    assert!(found[0].contains("unknown tool \"web\""), "{found:?}");
}

#[test]
fn a_missing_dataset_is_a_problem_and_load_refuses() {
    let dir = arena_dir(&[]);
    let report = lint(dir.path());
    assert_eq!(report.problems.len(), 1);
    assert!(
        report.problems[0]
            .to_string()
            .starts_with("dataset.jsonl: cannot read")
    );
    assert!(matches!(
        tribunal_judge::Arena::load(dir.path()),
        Err(JudgeError::Lint(_))
    ));
}

#[test]
fn a_harness_folder_runs_with_defaults() {
    // Only dataset.jsonl and corpus.json: the schema comes from the item's
    // json_schema check and `search` is offered because a corpus exists.
    let line = crate::support::item(
        "a",
        r#"[{"type": "json_schema", "schema": {"type": "object", "required": ["n"]}}, {"type": "tool_used", "name": "search"}]"#,
        r#"[{"tool_calls": [{"name": "search", "arguments": {"query": "n"}}]}, {"json": {"n": 1}}]"#,
    );
    let dir = arena_dir(&[
        ("dataset.jsonl", &line),
        (
            "corpus.json",
            r#"[{"id": "p", "title": "N", "text": "n is 1"}]"#,
        ),
    ]);
    let arena = tribunal_judge::Arena::load(dir.path()).unwrap();
    assert_eq!(arena.tools, vec!["search".to_string()]);
    assert_eq!(arena.items[0].schema.owner()["required"][0], "n");
}
