/*! `tribunal lint --run` as a process: each review item's `gold_test` run
in the sandbox on the change and on its parent (`CHANGE.diff` undone),
with the arena's `gold_tests/<id>/` laid over both; every item whose gold
the results contradict is listed at its dataset line and the exit is 2.
The `gold_test` field's own mistakes are lint problems like any other. */

use crate::cli_lint::{assert_lines, lint};
use crate::tribunal;
use std::path::Path;
use tribunal_testkit::launch::{code, stdout};

const ARENA_TOML: &str = "tools = [\"files\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"items/{id}\"\n";

/// The change: `value.txt` goes from 1 to 2.
const CHANGE: &str = "--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-1\n+2\n";

/// A review arena in a new temporary folder (`arena/`): one item per
/// `(id, verdict, gold_test, diff)`, each folder holding `value.txt` (2)
/// and the diff, and `gold_tests/<id>/check.sh` for each id in `checks`.
fn review_arena(items: &[(&str, &str, &str, &str)], checks: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    std::fs::create_dir(&arena).unwrap();
    std::fs::write(arena.join("arena.toml"), ARENA_TOML).unwrap();
    std::fs::write(arena.join("green.json"), "{\"type\": \"object\"}").unwrap();
    let mut lines = String::new();
    for (id, verdict, gold_test, diff) in items {
        let item = arena.join("items").join(id);
        std::fs::create_dir_all(&item).unwrap();
        std::fs::write(item.join("value.txt"), "2\n").unwrap();
        std::fs::write(item.join("CHANGE.diff"), diff).unwrap();
        lines.push_str(&format!(
            "{{\"id\": \"{id}\", \"input\": \"x\", \"checks\": [{{\"type\": \"verdict_equals\", \"verdict\": \"{verdict}\"}}], \"gold_test\": {gold_test}}}\n"
        ));
    }
    std::fs::write(arena.join("dataset.jsonl"), lines).unwrap();
    for (id, script) in checks {
        let folder = arena.join("gold_tests").join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("check.sh"), script).unwrap();
    }
    dir
}

/// A RED test that fails on the change and passes on the parent agrees; a
/// GREEN item whose test fails on the change, and passes on the parent it
/// says it fails on, is listed with both; a diff that does not undo
/// leaves no parent, and says why. The gold test's files are laid over
/// the parent after the diff is undone (`check.sh` is in neither folder).
#[test]
fn lint_run_lists_every_item_whose_gold_its_test_contradicts() {
    let shows_one = "grep -qx 1 value.txt\n";
    let dir = review_arena(
        &[
            (
                "agrees",
                "RED",
                r#"{"command": ["sh", "check.sh"], "parent": "passes"}"#,
                CHANGE,
            ),
            (
                "wrong_gold",
                "GREEN",
                r#"{"command": ["sh", "check.sh"], "parent": "fails"}"#,
                CHANGE,
            ),
            (
                "no_parent",
                "RED",
                r#"{"command": ["sh", "-c", "exit 3"], "parent": "passes"}"#,
                "--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-1\n+7\n",
            ),
        ],
        &[("agrees", shows_one), ("wrong_gold", shows_one)],
    );
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[
            "arena: ok, 3 item(s)",
            "arena/dataset.jsonl:2: gold_test: item \"wrong_gold\" (gold GREEN): gold GREEN but the test fails on the change (exit 1; no output); the test passes on the parent, where the item says it fails (exit 0; no output)",
            "arena/dataset.jsonl:3: gold_test: item \"no_parent\" (gold RED): the parent cannot be made: CHANGE.diff does not undo: value.txt: hunk 1 (line 1): its new lines are not in the file",
            "  RED   agrees: change fails, parent passes: agrees",
            "  GREEN wrong_gold: change fails, parent passes: CONTRADICTED",
            "  RED   no_parent: change fails, parent cannot be made: CONTRADICTED",
            "arena: gold tests: 3 of 3 item(s) runnable; 1 agree, 2 contradicted",
        ],
    );
    // Without --run nothing runs: the arena is well formed.
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!((code, lines.len()), (0, 1), "{lines:?}");
}

/// The field's own mistakes: an empty command, a parent that is neither
/// end, an unknown key with the name it was probably meant to be, a
/// `from_change` path out of the item's folder; an item without a gold
/// verdict or without CHANGE.diff, a `from_change` file the change does
/// not hold; a `gold_tests/` folder no item runs.
#[test]
fn a_malformed_gold_test_is_a_lint_problem() {
    let dir = review_arena(
        &[
            (
                "bad",
                "RED",
                r#"{"command": [], "parent": "maybe", "parnet": 1}"#,
                CHANGE,
            ),
            (
                "ok",
                "GREEN",
                r#"{"command": ["true"], "parent": "passes"}"#,
                CHANGE,
            ),
            (
                "kept",
                "GREEN",
                r#"{"command": ["true"], "parent": "fails", "from_change": ["value.txt", "tests/new.py"]}"#,
                CHANGE,
            ),
            (
                "escapes",
                "GREEN",
                r#"{"command": ["true"], "parent": "fails", "from_change": ["../../arena.toml"]}"#,
                CHANGE,
            ),
        ],
        &[("stray", "true\n")],
    );
    let arena = dir.path().join("arena");
    std::fs::remove_file(arena.join("items/ok/CHANGE.diff")).unwrap();
    let no_verdict = "{\"id\": \"unjudged\", \"input\": \"x\", \"checks\": [{\"type\": \"contains\", \"value\": \"y\"}], \"gold_test\": {\"command\": [\"true\"], \"parent\": \"passes\"}}\n";
    let dataset = std::fs::read_to_string(arena.join("dataset.jsonl")).unwrap() + no_verdict;
    std::fs::write(arena.join("dataset.jsonl"), dataset).unwrap();
    std::fs::create_dir_all(arena.join("items/unjudged")).unwrap();
    std::fs::write(arena.join("items/unjudged/CHANGE.diff"), CHANGE).unwrap();
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &[
            "arena/dataset.jsonl:1:112: gold_test.command: expected a non-empty array of strings (a program and its arguments), found []",
            "arena/dataset.jsonl:1:126: gold_test.parent: expected \"passes\" or \"fails\" (how the test ends on the code before the change)",
            "arena/dataset.jsonl:1:135: gold_test: unknown field `parnet`; did you mean `parent`?",
            "arena/dataset.jsonl:2: gold_test: item \"ok\": CHANGE.diff is missing from items/ok: the parent is the folder with it undone",
            "arena/dataset.jsonl:3: gold_test: item \"kept\": from_change: tests/new.py is not a file of items/kept",
            "arena/dataset.jsonl:4:162: gold_test.from_change: expected an array of paths inside the item's folder (`tests/test_x.py`; no `..`, not absolute)",
            "arena/dataset.jsonl:5: gold_test: item \"unjudged\": needs the item's gold verdict (a verdict_equals check)",
            "arena/gold_tests/stray: no item \"stray\" has a gold_test to run these files",
        ],
    );
}

/// The arena's `[sandbox]` (a review arena may have one without `shell`:
/// its gold tests run under it) names the engine `lint --run` uses: with
/// no sandbox the test runs in the copy itself, not at `/work`; a
/// container engine that cannot start refuses, never bubblewrap instead.
#[test]
fn lint_run_uses_the_engine_the_arenas_sandbox_names() {
    let outside = r#"{"command": ["sh", "-c", "test \"$(pwd)\" != /work"], "parent": "passes"}"#;
    let dir = review_arena(&[("where", "GREEN", outside, CHANGE)], &[]);
    let toml = dir.path().join("arena/arena.toml");
    // bubblewrap (no [sandbox]): the copy is /work, the test fails.
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 2, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("CONTRADICTED")),
        "{lines:?}"
    );
    std::fs::write(
        &toml,
        format!("{ARENA_TOML}[sandbox]\nengine = \"none-trusted-container\"\n"),
    )
    .unwrap();
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("arena: gold tests: 1 of 1 item(s) runnable; 1 agree, 0 contradicted")
    );
    std::fs::write(
        &toml,
        format!("{ARENA_TOML}[sandbox]\nengine = \"docker\"\nimage = \"alpine:3\"\n"),
    )
    .unwrap();
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 2, "{lines:?}");
    let last = lines.last().cloned().unwrap_or_default();
    assert!(
        last.starts_with("arena: gold tests not run: sandbox_unavailable: no sandbox: ")
            && last.contains("docker"),
        "{lines:?}"
    );
}

/// `toolchains = ["rust"]` shows this machine's Rust toolchain to the gold
/// tests (without it there is no `rustc` in the sandbox); a misspelt
/// toolchain, or one with a container engine, is a lint problem.
#[test]
fn a_review_arena_names_the_toolchains_its_gold_tests_need() {
    let rustc = r#"{"command": ["rustc", "--version"], "parent": "passes"}"#;
    let dir = review_arena(&[("rusty", "GREEN", rustc, CHANGE)], &[]);
    let toml = dir.path().join("arena/arena.toml");
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 2, "{lines:?}");
    assert!(
        lines[1].contains("gold GREEN but the test fails on the change"),
        "{lines:?}"
    );
    std::fs::write(
        &toml,
        format!("{ARENA_TOML}[sandbox]\ntoolchains = [\"rust\"]\n"),
    )
    .unwrap();
    let (code, lines) = lint(dir.path(), &["--run"]);
    assert_eq!(code, 0, "{lines:?}");
    std::fs::write(
        &toml,
        format!("{ARENA_TOML}[sandbox]\ntoolchains = [\"rsut\"]\n"),
    )
    .unwrap();
    let (code, lines) = lint(dir.path(), &[]);
    assert_eq!(code, 2);
    assert_lines(
        &lines,
        &["arena/arena.toml: sandbox.toolchains: unknown toolchain `rsut`; did you mean `rust`?"],
    );
    std::fs::write(
        &toml,
        format!(
            "{ARENA_TOML}[sandbox]\nengine = \"podman\"\nimage = \"rust:1\"\ntoolchains = [\"rust\"]\n"
        ),
    )
    .unwrap();
    let (_, lines) = lint(dir.path(), &[]);
    assert_lines(
        &lines,
        &[
            "arena/arena.toml: sandbox.toolchains: engine \"podman\" runs the image's toolchains, not this machine's: drop `toolchains` or pick an image that has them",
        ],
    );
}

/// The code_review arena's runnable gold: every item in a language with a
/// toolchain on this machine (Python, JavaScript, C, C++, Java, and Rust
/// through `toolchains = ["rust"]`) has a gold test, and each agrees with
/// its gold verdict on both sides.
#[test]
fn every_runnable_code_review_gold_agrees_with_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = tribunal(&["lint", "--run", "arenas/code_review"], root);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(
        out.ends_with(
            "arenas/code_review: gold tests: 29 of 42 item(s) runnable; 29 agree, 0 contradicted\n"
        ),
        "{out}"
    );
    // Both kinds of either verdict are there: the parent passing and failing.
    for kind in [
        "RED   pagination_off_by_one: change fails, parent passes: agrees",
        "RED   rollover_fixed_in_one_caller: change fails, parent fails: agrees",
        "GREEN rename_all_call_sites: change passes, parent passes: agrees",
        "GREEN context_manager: change passes, parent fails: agrees",
        "RED   backslash_escape_wrong_place: change fails, parent fails: agrees",
        "GREEN keyval_stream_validation: change passes, parent fails: agrees",
        "RED   glob_class_bound_underflow: change fails, parent passes: agrees",
        "GREEN semver_less_excludes_prerelease: change passes, parent fails: agrees",
    ] {
        assert!(out.contains(kind), "{kind}\n{out}");
    }
}
