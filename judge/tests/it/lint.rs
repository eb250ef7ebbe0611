//! Lint: every shipped arena is clean (one snapshot per arena), and each
//! kind of problem is reported with file:line.

use tribunal_judge::{JudgeError, lint};
use tribunal_testkit::arenas::{arena_dir, arenas_dir};

#[test]
fn every_arena_lints_clean() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
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
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
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
        "dataset.jsonl:1:47: checks[0]: unknown check type `json_vaild`; did you mean `json_valid`?",
        "dataset.jsonl:2:38: checks[0]: json_path_equals: missing field `path`",
        "dataset.jsonl:3:22: input: expected a string, found a number",
        "dataset.jsonl:3:36: checks[0]: tool_used: invalid type: integer `3`",
        "dataset.jsonl:4:81: checks[0]: json_schema: /type: unknown type `nope`; expected one of `array`,",
        "dataset.jsonl:5: duplicate id \"a\" (first at line 1)",
        "dataset.jsonl:6:73: mock[0]: unknown key `jsn`; did you mean `json`?",
        "dataset.jsonl:7:67: checks[0]: regex: invalid pattern",
        "dataset.jsonl:8:92: checks[0]: json_path_equals: unknown field `tolerance`; did you mean `tol`?",
        "dataset.jsonl:9:68: checks[0]: tool_used: the arena does not offer a tool named \"search\"; it offers none",
        "dataset.jsonl:10:38: checks[0]: json_schema: no inline schema and the arena has none",
        "dataset.jsonl:11:24: invalid JSON: EOF while parsing an object",
        "dataset.jsonl:12: id: missing",
        "dataset.jsonl:12:26: checks: empty",
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
fn the_agentic_arena_checks_are_linted_at_their_line() {
    let toml = "tools = [\"files\"]\n";
    let dataset = [
        r#"{"id": "a", "input": "x", "checks": [{"type": "iregex", "value": "(unclosed"}]}"#,
        r#"{"id": "b", "input": "x", "checks": [{"type": "sentence_count"}]}"#,
        r#"{"id": "c", "input": "x", "checks": [{"type": "sentence_count", "min": 4, "max": 2}]}"#,
        r#"{"id": "d", "input": "x", "checks": [{"type": "call_counts", "counts": {}}]}"#,
        r#"{"id": "e", "input": "x", "checks": [{"type": "tool_not_used", "name": "delete_file"}]}"#,
        r#"{"id": "f", "input": "x", "checks": [{"type": "tool_sequence", "tools": ["read_file", "serch", "serch"]}]}"#,
        r#"{"id": "g", "input": "x", "checks": [{"type": "numeric_equals", "value": 3, "tol": -1}]}"#,
        r#"{"id": "h", "input": "x", "checks": [{"type": "tool_sequence", "tools": ["read_file"], "mode": "prefix"}]}"#,
        r#"{"id": "i", "input": "x", "checks": [{"type": "iregex", "pattern": "x"}]}"#,
        r#"{"id": "j", "input": "x", "checks": [{"type": "call_counts", "counts": {"read_file": 1, "grep": 2, "web": 1}}]}"#,
        r#"{"id": "k", "input": "x", "checks": [{"type": "tool_args_match", "name": "read_file", "path": "path", "value": "a", "tol": 1}, {"type": "no_tool"}, {"type": "min_tool_calls", "value": 1}, {"type": "max_tool_calls", "value": 3}, {"type": "icontains", "value": "A"}, {"type": "sentence_count", "max": 2}, {"type": "tool_sequence", "tools": ["grep", "read_file"], "mode": "superset"}]}"#,
    ]
    .join("\n");
    let found = problems(&[("dataset.jsonl", &dataset), ("arena.toml", toml)]);
    let expected = [
        "dataset.jsonl:1:66: checks[0]: iregex: invalid pattern",
        "dataset.jsonl:2:38: checks[0]: sentence_count: give `min`, `max` or both",
        "dataset.jsonl:3:72: checks[0]: sentence_count: min 4 is above max 2",
        "dataset.jsonl:4:72: checks[0]: call_counts: `counts` is empty",
        "dataset.jsonl:5:72: checks[0]: tool_not_used: the arena does not offer a tool named \"delete_file\"; it offers `list_files`, `read_file`, `grep`",
        "dataset.jsonl:6:87: checks[0]: tool_sequence: the arena does not offer a tool named \"serch\"",
        "dataset.jsonl:7:84: checks[0]: numeric_equals: tol -1 must be a number of at least 0",
        "dataset.jsonl:8:38: checks[0]: tool_sequence: unknown value `prefix`; expected one of `strict`, `unordered`, `subset`, `superset`",
        "dataset.jsonl:9:38: checks[0]: iregex: missing field `value`",
        "dataset.jsonl:9:57: checks[0]: iregex: unknown field `pattern`; expected one of `value`, `description`",
        "dataset.jsonl:10:107: checks[0]: call_counts: the arena does not offer a tool named \"web\"",
    ];
    for (got, want) in found.iter().zip(expected) {
        assert!(
            got.starts_with(want),
            "{got:?} does not start with {want:?}"
        );
    }
    // One problem per mistake (a tool misspelt twice is named once; a
    // misnamed field is unknown and its own field missing); the last line,
    // every new type written well, has none.
    assert_eq!(found.len(), expected.len(), "{}", found.join("\n"));
}

#[test]
fn mock_mode_needs_mock_turns_on_every_item() {
    let dataset = [
        tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#),
        r#"{"id": "b", "input": "x", "checks": [{"type": "json_valid"}]}"#.to_string(),
        tribunal_testkit::arenas::item("c", OK_CHECKS, "[]"),
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    // Files alone are clean: a live run needs no mock turns.
    assert!(lint(dir.path()).is_clean());
    let report = tribunal_judge::lint_for_mock(dir.path());
    let lines: Vec<String> = report.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        lines,
        [
            "dataset.jsonl:2: item \"b\": no mock turns: run it with a live --backend or add `mock`",
            "dataset.jsonl:3: item \"c\": no mock turns: run it with a live --backend or add `mock`",
        ]
    );
    // A file problem comes first; mock readiness is judged on a clean arena.
    let broken = format!("{dataset}\n{{\"id\": 7}}");
    let dir = arena_dir(&[("dataset.jsonl", &broken)]);
    let report = tribunal_judge::lint_for_mock(dir.path());
    assert!(
        report
            .problems
            .iter()
            .all(|p| !p.message.contains("mock turns")),
        "{:?}",
        report.problems
    );
}

#[test]
fn arena_toml_and_corpus_problems_have_lines() {
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, "[]");
    let found = problems(&[
        ("dataset.jsonl", &line),
        ("arena.toml", "name = \"x\"\n\n[budget]\nmax_turn = 3\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("arena.toml:4:1: unknown key `max_turn`; did you mean `max_turns`?"),
        "{found:?}"
    );

    // A deadline that is not a positive, representable number of seconds is
    // a problem at its line, not a silent fallback to the default.
    for bad in ["0", "-5", "nan", "inf", "1e300", "\"soon\""] {
        let toml = format!("name = \"x\"\n[budget]\n\ndeadline_secs = {bad}\n");
        let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &toml)]);
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert!(found[0].starts_with("arena.toml:4:"), "{bad}: {found:?}");
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
    assert!(
        found[0].contains("tools: unknown tool `web`; expected one of `search`, `files`"),
        "{found:?}"
    );
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

#[tokio::test]
async fn a_harness_folder_runs_with_defaults() {
    // Only dataset.jsonl and corpus.json: the schema comes from the item's
    // json_schema check and `search` is offered because a corpus exists.
    let line = tribunal_testkit::arenas::item(
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
    assert_eq!(
        arena.name,
        dir.path().file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(arena.budget, tribunal_runtime::Budget::default());
    assert!(arena.system.is_none() && !arena.require_tool_first);
    // And it runs: the scripted search goes to the corpus, the answer passes.
    let out = dir.path().join("r.jsonl");
    let result =
        tribunal_testkit::arenas::mock_run(&arena, &tribunal_testkit::arenas::options(&out)).await;
    assert_eq!(result.rows.len(), 1);
    let row = &result.rows[0];
    assert_eq!(row.outcome, tribunal_judge::Outcome::Pass, "{row:?}");
    assert_eq!(row.tool_calls.len(), 1);
    assert!(
        row.tool_calls[0].ok,
        "the search ran on the folder's corpus"
    );
}

#[test]
fn backend_settings_are_checked_at_their_line() {
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
    let bad = ["[backend]", "output = \"grammar\""].join("\n");
    let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &bad)]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("arena.toml:2:10: unknown value `grammar`; expected one of"),
        "{found:?}"
    );
    assert!(
        found[0].contains("`auto`, `native`, `tool`, `prompt`"),
        "{found:?}"
    );

    let bad = [
        "require_tool_first = true",
        "[backend]",
        "output = \"tool\"",
        "temperature = 3.5",
        "max_output_tokens = 0",
        "extra_body = { stream = true, top_k = 20 }",
    ]
    .join("\n");
    let found = problems(&[("dataset.jsonl", &line), ("arena.toml", &bad)]);
    assert_eq!(
        found,
        [
            "arena.toml:4: backend.temperature must be between 0 and 2, not 3.5",
            "arena.toml:5: backend.max_output_tokens must be at least 1",
            "arena.toml:6: backend.extra_body sets stream, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)",
        ]
    );
    let unknown = "[backend]\ntemprature = 0\n";
    let found = problems(&[("dataset.jsonl", &line), ("arena.toml", unknown)]);
    assert!(
        found[0]
            .starts_with("arena.toml:2:1: unknown key `temprature`; did you mean `temperature`?"),
        "{found:?}"
    );
}

#[test]
fn backend_settings_load_into_the_arena() {
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
    let toml = [
        "require_tool_first = true",
        "[backend]",
        "output = \"native\"",
        "schema_on_tool_turns = false",
        "max_retries = 5",
        "max_output_tokens = 512",
        "temperature = 0.7",
        "seed = 7",
        "parallel_tool_calls = true",
        "extra_body = { top_k = 20, chat_template_kwargs = { enable_thinking = false } }",
        "prompt_cache = false",
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &line), ("arena.toml", &toml)]);
    let arena = tribunal_judge::Arena::load(dir.path()).unwrap();
    assert!(arena.require_tool_first);
    let b = &arena.backend;
    assert_eq!(b.output, tribunal_runtime::OutputChoice::Native);
    assert_eq!(b.schema_on_tool_turns, Some(false));
    assert_eq!((b.max_retries, b.max_output_tokens), (Some(5), Some(512)));
    assert_eq!(
        (b.temperature, b.seed, b.parallel_tool_calls),
        (Some(0.7), Some(7), Some(true))
    );
    assert_eq!(
        serde_json::Value::Object(b.extra_body.clone()),
        serde_json::json!({"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}})
    );
    assert_eq!(b.prompt_cache, Some(false));
    assert_eq!(b.max_retries(), 5);
    assert!(!b.prompt_cache());
}

/// The config hash holds every backend setting and the output plan, but not
/// `max_retries` (a harder retry may continue a results file) nor
/// `prompt_cache` (cache breakpoints change the bill, not the answers).
#[test]
fn the_config_hash_holds_backend_settings_but_not_retries_nor_prompt_caching() {
    use tribunal_runtime::OutputPlan;
    use tribunal_runtime::SchemaTarget;
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
    let dir = arena_dir(&[("dataset.jsonl", &line)]);
    let arena = tribunal_judge::Arena::load(dir.path()).unwrap();
    let plan = OutputPlan::tool(SchemaTarget::OpenAi);
    let base = tribunal_judge::internal::run::hash::config_hash(&arena, "openai-chat", "m", &plan);
    let with = |f: &dyn Fn(&mut tribunal_judge::Arena)| {
        let mut changed = arena.clone();
        f(&mut changed);
        tribunal_judge::internal::run::hash::config_hash(&changed, "openai-chat", "m", &plan)
    };
    assert_eq!(with(&|a| a.backend.max_retries = Some(9)), base);
    assert_eq!(with(&|a| a.backend.prompt_cache = Some(false)), base);
    assert_ne!(with(&|a| a.backend.temperature = Some(0.0)), base);
    assert_ne!(with(&|a| a.backend.seed = Some(1)), base);
    assert_ne!(with(&|a| a.backend.max_output_tokens = Some(64)), base);
    assert_ne!(with(&|a| a.backend.parallel_tool_calls = Some(true)), base);
    assert_ne!(with(&|a| a.backend.schema_on_tool_turns = Some(true)), base);
    assert_ne!(
        with(&|a| a.backend.output = tribunal_runtime::OutputChoice::Tool),
        base
    );
    assert_ne!(
        with(&|a| {
            a.backend
                .extra_body
                .insert("top_k".into(), serde_json::json!(1));
        }),
        base
    );
    assert_ne!(with(&|a| a.require_tool_first = true), base);
    let native = OutputPlan::native(SchemaTarget::OpenAi);
    assert_ne!(
        tribunal_judge::internal::run::hash::config_hash(&arena, "openai-chat", "m", &native),
        base
    );
}

#[cfg(unix)]
#[test]
fn a_files_root_symlinked_out_of_the_arena_is_a_problem() {
    let line = tribunal_testkit::arenas::item("a", OK_CHECKS, r#"[{"json": {"x": 1}}]"#);
    let toml = "tools = [\"files\"]\nfiles_root = \"code\"\n";
    let dir = arena_dir(&[("dataset.jsonl", &line), ("arena.toml", toml)]);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("code")).unwrap();
    let report = lint(dir.path());
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let problem = report.problems[0].to_string();
    assert!(problem.starts_with("arena.toml"), "{problem}");
    assert!(problem.contains("outside the arena folder"), "{problem}");
    assert!(tribunal_judge::Arena::load(dir.path()).is_err());

    // A symlink that stays inside the arena folder is fine.
    std::fs::remove_file(dir.path().join("code")).unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("code")).unwrap();
    assert!(lint(dir.path()).problems.is_empty());
}

/// A verdict arena whose `item_root` names a folder that does not exist for
/// an item: lint names the item at its dataset line (the run would give its
/// model no code to read).
#[test]
fn a_missing_verdict_item_folder_is_a_problem_at_its_line() {
    let green = r#"{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}"#;
    let toml = "tools = [\"files\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"items/{id}\"\n";
    let checks = r#"[{"type": "verdict_equals", "verdict": "GREEN"}]"#;
    let mock =
        r#"[{"json": {"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}}}]"#;
    let dataset = format!(
        "{}\n{}\n",
        tribunal_testkit::arenas::item("here", checks, mock),
        tribunal_testkit::arenas::item("gone", checks, mock)
    );
    let dir = arena_dir(&[
        ("dataset.jsonl", &dataset),
        ("arena.toml", toml),
        ("green.json", green),
    ]);
    std::fs::create_dir_all(dir.path().join("items/here")).unwrap();
    let report = lint(dir.path());
    let lines: Vec<String> = report.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("dataset.jsonl:2: verdict.item_root: item \"gone\""),
        "{}",
        lines[0]
    );
    std::fs::create_dir_all(dir.path().join("items/gone")).unwrap();
    assert!(lint(dir.path()).problems.is_empty());
}

/// Neither `item_root` nor an item id may root an item's file tools outside
/// the arena folder: `../other/{id}` and an id `../../outside` are lint
/// problems at the item's line.
#[test]
fn a_verdict_item_folder_outside_the_arena_is_a_problem() {
    let green = r#"{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}"#;
    let checks = r#"[{"type": "verdict_equals", "verdict": "GREEN"}]"#;
    let mock =
        r#"[{"json": {"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}}}]"#;
    let outer = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outer.path().join("other/a")).unwrap();
    std::fs::create_dir_all(outer.path().join("arena/items")).unwrap();
    std::fs::create_dir_all(outer.path().join("outside")).unwrap();
    let arena = outer.path().join("arena");
    for (root, id) in [("../other/{id}", "a"), ("items/{id}", "../../outside")] {
        let toml = format!(
            "tools = [\"files\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"{root}\"\n"
        );
        std::fs::write(arena.join("arena.toml"), toml).unwrap();
        std::fs::write(arena.join("green.json"), green).unwrap();
        std::fs::write(
            arena.join("dataset.jsonl"),
            tribunal_testkit::arenas::item(id, checks, mock),
        )
        .unwrap();
        let report = lint(&arena);
        let lines: Vec<String> = report.problems.iter().map(|p| p.to_string()).collect();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("dataset.jsonl:1: verdict.item_root")
                    && l.contains("is outside the arena folder")),
            "{root} {id}: {lines:?}"
        );
    }
}

/// One mistake in `arena.toml` or the schema file is one problem: the
/// items do not each add "no schema" (or an unoffered tool) because the
/// file that would have given it could not be read.
#[test]
fn an_unreadable_arena_toml_or_schema_is_the_one_problem() {
    let item = |id: &str| {
        tribunal_testkit::arenas::item(
            id,
            r#"[{"type": "json_schema"}]"#,
            r#"[{"tool_calls": [{"name": "search", "arguments": {"query": "q"}}]}, {"json": {"x": 1}}]"#,
        )
    };
    let dataset: String = (0..15)
        .map(|i| item(&format!("i{i}")))
        .collect::<Vec<_>>()
        .join("\n");
    let corpus = r#"[{"id": "p", "title": "t", "text": "x"}]"#;
    let schema = r#"{"type": "object"}"#;
    let cases = [
        (
            "a typo'd key",
            "schema = \"schema.json\"\ntools = [\"search\"]\nsystme = \"hi\"\n",
            schema,
            "unknown key `systme`; did you mean `system`?",
        ),
        (
            "bad TOML",
            "schema = \"schema.json\n",
            schema,
            "arena.toml:1",
        ),
        (
            "a schema that is not JSON",
            "schema = \"schema.json\"\ntools = [\"search\"]\n",
            "{ not json",
            "schema",
        ),
    ];
    for (what, toml, schema, expected) in cases {
        let found = problems(&[
            ("dataset.jsonl", &dataset),
            ("arena.toml", toml),
            ("schema.json", schema),
            ("corpus.json", corpus),
        ]);
        assert_eq!(found.len(), 1, "{what}: {found:#?}");
        assert!(found[0].contains(expected), "{what}: {found:#?}");
    }
}

/// A misspelt gold verdict is a problem at its line, not an item silently
/// left out of the calibration.
#[test]
fn a_misspelt_gold_verdict_is_a_problem_at_its_line() {
    let good = tribunal_testkit::arenas::item(
        "a",
        r#"[{"type": "verdict_equals", "verdict": "GREEN"}]"#,
        r#"[{"json": {"verdict": "GREEN"}}]"#,
    );
    let bad = tribunal_testkit::arenas::item(
        "b",
        r#"[{"type": "verdict_equals", "verdict": "green"}]"#,
        r#"[{"json": {"verdict": "GREEN"}}]"#,
    );
    let found = problems(&[("dataset.jsonl", &format!("{good}\n{bad}"))]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("dataset.jsonl:2:"), "{found:#?}");
    assert!(found[0].contains("verdict_equals"), "{found:#?}");
    assert!(found[0].contains("green"), "{found:#?}");
}

/// `search_k` fixes every search's number of passages: the tool offered
/// has only `query` (the model writes no `k`), the hash says so, and a
/// value out of range or without a search tool is a problem.
#[test]
fn search_k_fixes_the_passages_and_hides_k_from_the_model() {
    let line = tribunal_testkit::arenas::item(
        "a",
        OK_CHECKS,
        r#"[{"tool_calls": [{"name": "search", "arguments": {"query": "n"}}]}, {"json": {"n": 1}}]"#,
    );
    let corpus = r#"[{"id": "p", "title": "N", "text": "n is 1"}]"#;
    let load = |toml: &str| {
        let dir = arena_dir(&[
            ("dataset.jsonl", &line),
            ("corpus.json", corpus),
            ("arena.toml", toml),
        ]);
        tribunal_judge::Arena::load(dir.path()).unwrap()
    };
    let spec = |arena: &tribunal_judge::Arena| arena.toolbox.specs()[0].parameters.clone();
    let fixed = load("search_k = 2\n");
    let free = load("");
    assert_eq!(
        spec(&fixed)["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["query"]
    );
    assert!(spec(&free)["properties"].get("k").is_some());
    let plan = {
        use tribunal_runtime::Backend;
        tribunal_runtime::ScriptedBackend::from_turns([]).output_plan()
    };
    let hash = |arena| tribunal_judge::internal::run::hash::config_hash(arena, "mock", "m", &plan);
    assert_ne!(hash(&fixed), hash(&free));

    for (toml, want) in [
        (
            "search_k = 0\n",
            "search_k: must be between 1 and 20, found 0",
        ),
        (
            "search_k = 21\n",
            "search_k: must be between 1 and 20, found 21",
        ),
        (
            "tools = [\"files\"]\nsearch_k = 3\n",
            "search_k: the arena offers no `search` tool",
        ),
    ] {
        let found = problems(&[
            ("dataset.jsonl", &line),
            ("corpus.json", corpus),
            ("arena.toml", toml),
        ]);
        assert!(found.iter().any(|p| p.contains(want)), "{toml}: {found:?}");
    }
}
