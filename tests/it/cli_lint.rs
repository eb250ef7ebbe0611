//! `tribunal lint` as a process: every problem of a line at once, "did you
//! mean" for a near-miss name, one position per problem
//! (`ARENA/FILE:LINE:COLUMN`), schema mistakes at their place in the
//! schema file, and mock scripts checked against the schemas they answer.

use crate::tribunal;
use std::path::Path;
use tribunal_testkit::launch::{code, stdout};

/// An arena folder `arena` in a new temporary folder, holding `files`.
fn arena_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    std::fs::create_dir(&arena).unwrap();
    for (name, text) in files {
        std::fs::write(arena.join(name), text).unwrap();
    }
    dir
}

/// `tribunal lint ARGS… arena` in `dir`: the exit code and stdout's lines.
pub(crate) fn lint(dir: &Path, flags: &[&str]) -> (i32, Vec<String>) {
    let mut args = vec!["lint"];
    args.extend_from_slice(flags);
    args.push("arena");
    let o = tribunal(&args, dir);
    (code(&o), stdout(&o).lines().map(str::to_string).collect())
}

#[track_caller]
pub(crate) fn assert_lines(found: &[String], expected: &[&str]) {
    assert_eq!(found, expected, "\n{}", found.join("\n"));
}

/// Every problem of a dataset line in one run: two unknown check types,
/// unknown fields of a third check, and a bad pattern of a fourth (found
/// only when the line is checked against the arena), each at its column.
#[test]
fn every_problem_of_a_line_is_reported_at_once() {
    let line = r#"{"id": "a", "input": "x", "checks": [{"type": "json_vaild"}, {"type": "regex", "pattern": "("}, {"type": "tool_uesd", "name": "search"}, {"type": "json_path_equals", "pth": "a", "valeu": 1}]}"#;
    let dir = arena_with(&[("dataset.jsonl", line)]);
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[
            "arena/dataset.jsonl:1:47: checks[0]: unknown check type `json_vaild`; did you mean `json_valid`?",
            "arena/dataset.jsonl:1:91: checks[1]: regex: invalid pattern: regex parse error:     (     ^ error: unclosed group",
            "arena/dataset.jsonl:1:106: checks[2]: unknown check type `tool_uesd`; did you mean `tool_used`?",
            "arena/dataset.jsonl:1:167: checks[3]: json_path_equals: unknown field `pth`; did you mean `path`?",
            "arena/dataset.jsonl:1:179: checks[3]: json_path_equals: unknown field `valeu`; did you mean `value`?",
        ],
    );
}

/// A misspelt name is told the name it was probably meant to be, not the
/// list of every name; with no close name, the list stays.
#[test]
fn a_near_miss_name_gets_a_suggestion() {
    let dir = arena_with(&[
        (
            "arena.toml",
            "tools = [\"files\"]\nrequire_tool_frist = true\n",
        ),
        (
            "dataset.jsonl",
            r#"{"id": "a", "input": "x", "checks": [{"type": "json_valid"}]}"#,
        ),
    ]);
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[
            "arena/arena.toml:2:1: unknown key `require_tool_frist`; did you mean `require_tool_first`?",
        ],
    );

    let dataset = [
        r#"{"id": "a", "input": "x", "checks": [{"type": "bogus"}, {"type": "tool_used", "name": "read_fiel"}]}"#,
        r#"{"id": "b", "input": "x", "checks": [{"type": "json_valid"}], "mock": [{"tool_calls": [{"name": "gerp"}]}, {"jsn": {}}]}"#,
    ]
    .join("\n");
    let dir = arena_with(&[
        ("arena.toml", "tools = [\"files\", \"serch\"]\n"),
        ("dataset.jsonl", &dataset),
    ]);
    let (_, lines) = lint(dir.path(), &[]);
    let kinds = "`json_valid`, `json_schema`, `json_path_equals`";
    assert!(
        lines[0]
            .starts_with("arena/arena.toml: tools: unknown tool `serch`; did you mean `search`?"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "arena/dataset.jsonl:1:47: checks[0]: unknown check type `bogus`; expected one of {kinds}"
        )),
        "{lines:?}"
    );
    assert_lines(
        &lines[2..],
        &[
            "arena/dataset.jsonl:1:87: checks[1]: tool_used: the arena does not offer a tool named \"read_fiel\"; did you mean `read_file`?",
            "arena/dataset.jsonl:2:97: mock[0]: calls tool \"gerp\", which the arena does not offer; did you mean `grep`?",
            "arena/dataset.jsonl:2:109: mock[1]: unknown key `jsn`; did you mean `json`?",
        ],
    );
}

/// A line that is not JSON has one position: its line in the dataset and
/// the column on it (not serde's "line 1 column N" of the line itself).
#[test]
fn invalid_json_has_one_position() {
    let dataset = [
        r#"{"id": "a", "input": "x", "checks": [{"type": "json_valid"}]}"#,
        r#"{"id": "b", "input": "x" "checks": []}"#,
    ]
    .join("\n");
    let dir = arena_with(&[("dataset.jsonl", &dataset)]);
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &["arena/dataset.jsonl:2:26: invalid JSON: expected `,` or `}`"],
    );
}

/// A schema's mistakes are blamed on the schema file, each at its pointer
/// in that schema (not in the metaschema) and its line and column; every
/// one of them, a misspelt type with the type it was meant to be.
#[test]
fn schema_mistakes_are_named_in_the_schema_file() {
    let schema = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"country\": {\"type\": \"objekt\"}\n  },\n  \"required\": \"country\"\n}\n";
    let dir = arena_with(&[
        ("arena.toml", "schema = \"schema.json\"\n"),
        ("schema.json", schema),
        (
            "dataset.jsonl",
            r#"{"id": "a", "input": "x", "checks": [{"type": "json_schema", "schema": {"type": "strin"}}]}"#,
        ),
    ]);
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[
            "arena/dataset.jsonl:1:81: checks[0]: json_schema: /type: unknown type `strin`; did you mean `string`?",
            "arena/schema.json:4:25: schema: /properties/country/type: unknown type `objekt`; did you mean `object`?",
            "arena/schema.json:6:15: schema: /required: \"country\" is not of type \"array\"",
        ],
    );
}

/// An item whose scripted final answer breaks the arena's schema, or whose
/// scripted tool call breaks the tool's parameters, is a lint problem (it
/// used to show only as a FAIL at run time), with `lint` and `lint --mock`.
#[test]
fn mock_answers_and_tool_calls_are_checked_against_their_schemas() {
    let schema = r#"{"type": "object", "properties": {"name": {"type": "string"}, "year": {"type": "integer"}}, "required": ["name", "year"]}"#;
    let dataset = [
        r#"{"id": "ok", "input": "x", "checks": [{"type": "json_schema"}], "mock": [{"json": {"name": "a", "year": 1}}]}"#,
        r#"{"id": "bad", "input": "x", "checks": [{"type": "json_schema"}], "mock": [{"tool_calls": [{"name": "read_file", "arguments": {"path": 3}}]}, {"json": {"name": "Eiffel", "year": "1889"}}]}"#,
        r#"{"id": "repaired", "input": "x", "checks": [{"type": "json_schema"}], "mock": [{"json": {"name": "a"}}, {"text": "Here: {\"name\": \"a\", \"year\": 2}"}]}"#,
        r#"{"id": "text", "input": "x", "checks": [{"type": "json_schema"}], "mock": [{"text": "no JSON here"}]}"#,
    ]
    .join("\n");
    let dir = arena_with(&[
        (
            "arena.toml",
            "schema = \"schema.json\"\ntools = [\"files\"]\n",
        ),
        ("schema.json", schema),
        ("dataset.jsonl", &dataset),
    ]);
    let expected = [
        "arena/dataset.jsonl:2:126: mock[0]: tool_calls[0]: invalid arguments for read_file: instancePath \"/path\": 3 is not of type \"string\"",
        "arena/dataset.jsonl:2:178: mock[1]: the final answer breaks the schema: /year: \"1889\" is not of type \"integer\"",
        "arena/dataset.jsonl:4:85: mock[0]: the final answer is refused: no_json: no JSON value was found in the response",
    ];
    for flags in [&[][..], &["--mock"][..]] {
        let (code, lines) = lint(dir.path(), flags);
        assert_eq!(code, 2, "{flags:?}");
        assert_lines(&lines, &expected);
    }
}

/// Issue #62 point 8: a schema that is no schema at all (`[1,2,3]`) is one
/// mistake, said once (the metaschema reached it by eight ways).
#[test]
fn a_schema_that_is_an_array_is_reported_once() {
    let dir = arena_with(&[
        ("arena.toml", "name = \"a\"\nschema = \"schema.json\"\n"),
        ("schema.json", "[1,2,3]\n"),
        (
            "dataset.jsonl",
            r#"{"id": "a", "input": "x", "checks": [{"type": "contains", "value": "1"}], "mock": [{"json": 1}]}"#,
        ),
    ]);
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[r#"arena/schema.json:1:1: schema: (root): [1,2,3] is not of types "boolean", "object""#],
    );
}

/// Issue #62 point 8: `run` names the problems of an arena it will not run
/// the way `lint` does, under the arena's folder (`arena/arena.toml:3:1`),
/// so the line opens from where the command was typed.
#[test]
fn run_names_a_problem_under_the_arena_folder_as_lint_does() {
    let dir = arena_with(&[
        ("arena.toml", "name = \"a\"\n\nbogus_key = 1\n"),
        (
            "dataset.jsonl",
            r#"{"id": "a", "input": "x", "checks": [{"type": "contains", "value": "1"}], "mock": [{"json": 1}]}"#,
        ),
    ]);
    let o = tribunal(&["run", "arena"], dir.path());
    assert_eq!(code(&o), 2);
    let err = tribunal_testkit::launch::stderr(&o);
    assert!(
        err.lines()
            .any(|l| l.starts_with("arena/arena.toml:3:1: unknown key `bogus_key`")),
        "{err}"
    );
    let (_, lines) = lint(dir.path(), &[]);
    assert!(lines[0].starts_with("arena/arena.toml:3:1: unknown key `bogus_key`"));
}

/// Issue #62 point 5: an item field tribunal does not know is a problem
/// at its key, with "did you mean" for a near miss, as an arena.toml typo
/// is — for `lint` and for `run`, which does not run the arena.
#[test]
fn an_unknown_item_field_is_a_problem_with_did_you_mean() {
    let lines = concat!(
        r#"{"id": "a", "input": "x", "checks": [{"type": "contains", "value": "1"}], "mokc": [{"json": 1}]}"#,
        "\n",
        r#"{"id": "b", "input": "x", "checks": [{"type": "contains", "value": "1"}], "mock": [{"json": 1}], "turns": []}"#,
        "\n",
    );
    let dir = arena_with(&[("dataset.jsonl", lines)]);
    let (exit, lines) = lint(dir.path(), &[]);
    assert_eq!(exit, 2);
    assert_lines(
        &lines,
        &[
            "arena/dataset.jsonl:1:75: unknown item field `mokc`; did you mean `mock`?",
            "arena/dataset.jsonl:2:98: unknown item field `turns`; expected one of `id`, `input`, `checks`, `mock`, `gold_rubric`, `twin_of`, `injection`, `user`, `gold_test`, `test_command`",
        ],
    );
    let o = tribunal(&["run", "arena"], dir.path());
    assert_eq!(code(&o), 2);
    assert!(
        tribunal_testkit::launch::stderr(&o).contains("did you mean `mock`?"),
        "{}",
        tribunal_testkit::launch::stderr(&o)
    );
}
