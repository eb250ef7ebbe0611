//! `tribunal sandbox` and `tools = ["shell"]` arenas through the binary:
//! the engine and limits printed, what the model reads on stdout, the exit
//! codes, the keys of tribunal's own environment invisible, and a fresh,
//! isolated copy of the item's folder for every run, removed after scoring.
//! (The sandbox's own fault table is `tools/tests/it/sandbox.rs`.)

use std::path::Path;

use serde_json::Value;

use crate::tribunal_command;

/// `tribunal sandbox ARGS` in `cwd` with `env` added: exit code, stdout
/// parsed as the model's JSON (null when it is not JSON), stderr.
fn sandbox(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> (i32, Value, String) {
    let mut command = tribunal_command(&[&["sandbox"], args].concat(), cwd);
    command.envs(env.iter().copied());
    let out = command.output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sandbox_prints_the_engine_and_limits_and_what_the_model_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = sandbox(
        &[
            "--timeout-secs",
            "7",
            "--memory-mb",
            "300",
            "--",
            "sh",
            "-c",
            "echo hi; exit 4",
        ],
        dir.path(),
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("engine: bubblewrap"), "{err}");
    assert!(
        err.contains("wall 7 s") && err.contains("memory 300 MiB"),
        "{err}"
    );
    assert_eq!(out["exit_code"], 4);
    assert_eq!(out["stdout"], "hi\n");
    let (code, out, err) = sandbox(&["--", "true"], dir.path(), &[]);
    assert_eq!((code, &out["exit_code"]), (0, &Value::from(0)), "{err}");
}

#[test]
fn sandbox_cuts_at_the_wall_time_and_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = sandbox(
        &["--timeout-secs", "1", "--", "sleep", "600"],
        dir.path(),
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(out["limit"], "wall_time");
    assert_eq!(out["exit_code"], Value::Null);
}

#[test]
fn sandbox_never_shows_the_key_of_tribunals_own_environment() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-sandbox-test-0123456789abcdef";
    let (code, out, err) = sandbox(
        &[
            "--env",
            "GREETING=hello",
            "--",
            "sh",
            "-c",
            "echo $GREETING; env; tr '\\0' '\\n' < /proc/1/environ; cat /proc/*/environ; echo $OPENAI_API_KEY",
        ],
        dir.path(),
        &[("OPENAI_API_KEY", key), ("ANTHROPIC_API_KEY", key)],
    );
    assert_eq!(code, 0, "{err}");
    let stdout = out["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("hello\n"), "{stdout}");
    assert!(
        !stdout.contains(key) && !stdout.contains("API_KEY"),
        "{stdout}"
    );
    assert!(!err.contains(key));
}

#[test]
fn sandbox_works_on_a_copy_of_dir_and_keeps_it_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("a.txt"), "original\n").unwrap();
    let dir_arg = project.to_str().unwrap();
    let line = "cat a.txt; echo changed > a.txt";
    let (code, out, err) = sandbox(&["--dir", dir_arg, "--", "sh", "-c", line], dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["stdout"], "original\n");
    assert_eq!(
        std::fs::read_to_string(project.join("a.txt")).unwrap(),
        "original\n"
    );
    let copy = err
        .lines()
        .find_map(|l| l.strip_prefix("copy:   "))
        .and_then(|l| l.split(" at ").next())
        .unwrap();
    assert!(!Path::new(copy).exists(), "the copy was left behind");
    let (_, _, err) = sandbox(
        &["--keep", "--dir", dir_arg, "--", "sh", "-c", line],
        dir.path(),
        &[],
    );
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("kept:   "))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(Path::new(kept).join("a.txt")).unwrap(),
        "changed\n"
    );
    std::fs::remove_dir_all(kept).unwrap();
}

/// A `shell` arena: one item whose mock script runs a command that counts
/// how many runs have written to its folder, then answers.
fn shell_arena(dir: &Path, sandbox_table: &str) {
    std::fs::create_dir_all(dir.join("project")).unwrap();
    std::fs::write(dir.join("project/seen.txt"), "").unwrap();
    std::fs::write(
        dir.join("arena.toml"),
        format!("name = \"shell\"\ntools = [\"shell\"]\nfiles_root = \"project\"\n{sandbox_table}"),
    )
    .unwrap();
    let line = "echo run >> seen.txt; wc -l < seen.txt; echo $MARK";
    let item = serde_json::json!({
        "id": "count",
        "input": "How many runs wrote here?",
        "checks": [
            {"type": "json_schema", "schema": {"type": "object"}},
            {"type": "tool_used", "name": "run_command"},
            {"type": "tool_used", "name": "read_file"}
        ],
        "mock": [
            // Two turns: the calls of one turn run concurrently.
            {"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "seen.txt"}}]},
            {"json": {"runs": 1}}
        ]
    });
    std::fs::write(dir.join("dataset.jsonl"), format!("{item}\n")).unwrap();
}

/// Every tool result of every transcript under `dir`.
fn tool_results(dir: &Path) -> Vec<String> {
    let mut results = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let transcript: Value = serde_json::from_str(&text).unwrap();
        collect_tool_results(&transcript, &mut results);
    }
    results
}

fn collect_tool_results(v: &Value, into: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let (Some(Value::String(content)), Some(_)) =
                (map.get("content"), map.get("is_error"))
            {
                into.push(content.clone());
            }
            map.values().for_each(|v| collect_tool_results(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_tool_results(v, into)),
        _ => {}
    }
}

#[test]
fn every_run_of_a_shell_arena_gets_its_own_fresh_copy_removed_after_scoring() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    shell_arena(
        &arena,
        "[sandbox]\ntimeout_secs = 20\nenv = { MARK = \"declared\" }\n",
    );
    let transcripts = dir.path().join("transcripts");
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let mut command = tribunal_command(
        &[
            "run",
            arena.to_str().unwrap(),
            "--repeat",
            "12",
            "--concurrency",
            "6",
            "--transcripts",
            transcripts.to_str().unwrap(),
        ],
        dir.path(),
    );
    command.env("TMPDIR", &temp);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let results = tool_results(&transcripts);
    let commands: Vec<&String> = results.iter().filter(|r| r.contains("exit_code")).collect();
    assert_eq!(commands.len(), 12, "{results:?}");
    for result in commands {
        let out: Value = serde_json::from_str(result).unwrap();
        // Each run saw only its own write, and the declared variable.
        assert_eq!(out["stdout"], "1\ndeclared\n", "{result}");
    }
    // read_file reads the same copy run_command wrote.
    assert_eq!(results.iter().filter(|r| r.contains("1: run")).count(), 12);
    // The item's folder is as it was, and no copy is left.
    assert_eq!(
        std::fs::read_to_string(arena.join("project/seen.txt")).unwrap(),
        ""
    );
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
    assert!(left.is_empty(), "copies left behind: {left:?}");
}

#[test]
fn a_shell_arena_lints_its_sandbox_table_and_suggests_the_tool_name() {
    let dir = tempfile::tempdir().unwrap();
    shell_arena(
        dir.path(),
        "[sandbox]\ntimeout_secs = 0\nenv = { \"BAD-NAME\" = \"x\" }\n",
    );
    let out = crate::tribunal(&["lint", "."], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("sandbox.timeout_secs must be at least 1"),
        "{all}"
    );
    assert!(all.contains("`BAD-NAME` is not a variable name"), "{all}");
    std::fs::write(dir.path().join("arena.toml"), "tools = [\"shel\"]\n").unwrap();
    let out = crate::tribunal(&["lint", "."], dir.path());
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("did you mean `shell`"), "{all}");
    std::fs::write(dir.path().join("arena.toml"), "[sandbox]\ncpu_secs = 5\n").unwrap();
    let out = crate::tribunal(&["lint", "."], dir.path());
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("[sandbox] has no effect"), "{all}");
}

#[test]
fn keep_copies_keeps_each_runs_copy_with_what_its_commands_left() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    shell_arena(&arena, "[sandbox]\nkeep_copies = true\n");
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let mut command = tribunal_command(
        &["run", arena.to_str().unwrap(), "--repeat", "2"],
        dir.path(),
    );
    command.env("TMPDIR", &temp);
    let out = command.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept: Vec<_> = std::fs::read_dir(&temp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    for copy in kept {
        assert_eq!(
            std::fs::read_to_string(copy.join("seen.txt")).unwrap(),
            "run\n"
        );
    }
}

/// `tribunal lint .` in `dir`: stdout and stderr together.
fn lint_text(dir: &Path) -> String {
    let out = crate::tribunal(&["lint", "."], dir);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_writing_tools_are_off_by_default_on_with_write_files_and_refused_in_a_review() {
    let dir = tempfile::tempdir().unwrap();
    shell_arena(dir.path(), "");
    let item = serde_json::json!({
        "id": "writes",
        "input": "Write a file.",
        "checks": [{"type": "tool_used", "name": "write_file"}],
        "mock": [{"json": {}}]
    });
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{item}\n")).unwrap();
    let off = lint_text(dir.path());
    assert!(
        off.contains("does not offer a tool named \"write_file\""),
        "{off}"
    );
    shell_arena(dir.path(), "[sandbox]\nwrite_files = true\n");
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{item}\n")).unwrap();
    let on = lint_text(dir.path());
    assert!(!on.contains("write_file"), "{on}");
    // A review arena judges the change as it is.
    let review = format!(
        "{}\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"red.json\"\n",
        std::fs::read_to_string(dir.path().join("arena.toml")).unwrap()
    );
    std::fs::write(dir.path().join("arena.toml"), review).unwrap();
    let refused = lint_text(dir.path());
    assert!(
        refused.contains("sandbox.write_files: a review ([verdict]) arena"),
        "{refused}"
    );
}

/// The explicit opt-out: `engine = "none-trusted-container"` runs the
/// commands with no sandbox (in the run's copy still), every row says
/// `unsandboxed`, and the report carries the banner; a misspelt engine is a
/// lint problem, never a silent fallback.
#[test]
fn no_sandbox_only_when_named_and_then_every_row_and_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    shell_arena(&arena, "[sandbox]\nengine = \"none-trusted-container\"\n");
    let results = dir.path().join("results.jsonl");
    let out = crate::tribunal(
        &["run", "arena", "--out", results.to_str().unwrap()],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows = std::fs::read_to_string(&results).unwrap();
    let row: Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(row["unsandboxed"], true, "{row}");
    assert_eq!(row["outcome"], "PASS", "{row}");
    // The copy was written, not the item's folder.
    assert_eq!(
        std::fs::read_to_string(arena.join("project/seen.txt")).unwrap(),
        ""
    );
    let report = crate::tribunal(&["report", results.to_str().unwrap()], dir.path());
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("\n*** UNSANDBOXED: the model's commands ran with NO sandbox ([sandbox] engine = \"none-trusted-container\")"),
        "{text}"
    );
    // The default engine's rows say nothing of it.
    shell_arena(&arena, "[sandbox]\nengine = \"bubblewrap\"\n");
    let sandboxed = dir.path().join("sandboxed.jsonl");
    let out = crate::tribunal(
        &["run", "arena", "--out", sandboxed.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let rows = std::fs::read_to_string(&sandboxed).unwrap();
    assert!(!rows.contains("unsandboxed"), "{rows}");
    shell_arena(&arena, "[sandbox]\nengine = \"none\"\n");
    let all = lint_text(&arena);
    assert!(
        all.contains(
            "sandbox.engine: unknown engine `none`; did you mean `none-trusted-container`?"
        ),
        "{all}"
    );
}

/// A reviewer given `run_command` (a review arena with `tools =
/// ["shell"]`: the setting that lets it run the tests) runs its commands
/// on a copy of the change's folder, and never sees the arena's
/// `gold_tests/` (what `lint --run` lays over its own copies only).
#[test]
fn a_reviewer_with_run_command_works_on_the_change_and_never_sees_the_gold_tests() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    std::fs::create_dir_all(arena.join("items/bump")).unwrap();
    std::fs::create_dir_all(arena.join("gold_tests/bump")).unwrap();
    std::fs::write(arena.join("items/bump/value.txt"), "2\n").unwrap();
    std::fs::write(
        arena.join("items/bump/CHANGE.diff"),
        "--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-1\n+2\n",
    )
    .unwrap();
    std::fs::write(
        arena.join("gold_tests/bump/check.sh"),
        "grep -qx 1 value.txt\n",
    )
    .unwrap();
    std::fs::write(arena.join("green.json"), "{\"type\": \"object\"}").unwrap();
    std::fs::write(
        arena.join("arena.toml"),
        "tools = [\"shell\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"items/{id}\"\n[sandbox]\ntimeout_secs = 20\n",
    )
    .unwrap();
    let item = serde_json::json!({
        "id": "bump",
        "input": "Is the change right?",
        "checks": [
            {"type": "verdict_equals", "verdict": "RED"},
            {"type": "tool_used", "name": "run_command"}
        ],
        "gold_test": {"command": ["sh", "check.sh"], "parent": "passes"},
        "mock": [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "ls -A; cat value.txt"}}]},
            {"json": {"result": {"verdict": "RED", "verdictFields": {}}}}
        ]
    });
    std::fs::write(arena.join("dataset.jsonl"), format!("{item}\n")).unwrap();
    let transcripts = dir.path().join("transcripts");
    let out = crate::tribunal(
        &[
            "run",
            "arena",
            "--transcripts",
            transcripts.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = tool_results(&transcripts);
    let ran: Vec<Value> = results
        .iter()
        .filter_map(|r| serde_json::from_str::<Value>(r).ok())
        .filter(|v| v.get("exit_code").is_some())
        .collect();
    assert_eq!(ran.len(), 1, "{results:?}");
    assert_eq!(
        ran[0]["stdout"], "CHANGE.diff\nvalue.txt\n2\n",
        "{}",
        ran[0]
    );
    // The same arena's gold, run by lint --run, agrees.
    let out = crate::tribunal(&["lint", "--run", "arena"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 agree, 0 contradicted"), "{stdout}");
}

/// `[sandbox] run_tests = true`: the reviewer's command tool is
/// `run_tests`, which runs the item's `test_command` (never the gold test)
/// and nothing else; `run_command` is not offered, so a `tool_used` check
/// of it is a lint problem. An item without a command, and the arena's
/// `test_command` without `run_tests`, are lint problems.
#[test]
fn run_tests_gives_the_reviewer_the_items_test_command_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    std::fs::create_dir_all(arena.join("items/bump")).unwrap();
    std::fs::write(arena.join("items/bump/value.txt"), "2\n").unwrap();
    std::fs::write(
        arena.join("items/bump/CHANGE.diff"),
        "--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-1\n+2\n",
    )
    .unwrap();
    std::fs::write(arena.join("green.json"), "{\"type\": \"object\"}").unwrap();
    let toml = "tools = [\"shell\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\nfail_schema = \"green.json\"\nitem_root = \"items/{id}\"\n[sandbox]\ntimeout_secs = 20\nrun_tests = true\n";
    std::fs::write(arena.join("arena.toml"), toml).unwrap();
    let item = |tool: &str, test_command: Value| {
        serde_json::json!({
            "id": "bump",
            "input": "Is the change right?",
            "test_command": test_command,
            "checks": [
                {"type": "verdict_equals", "verdict": "RED"},
                {"type": "tool_used", "name": tool}
            ],
            "mock": [
                {"tool_calls": [{"name": "run_tests", "arguments": {}}]},
                {"json": {"result": {"verdict": "RED", "verdictFields": {}}}}
            ]
        })
    };
    let dataset = arena.join("dataset.jsonl");
    std::fs::write(
        &dataset,
        format!(
            "{}\n",
            item(
                "run_tests",
                serde_json::json!(["sh", "-c", "ls -A; cat value.txt; exit 1"])
            )
        ),
    )
    .unwrap();
    let transcripts = dir.path().join("transcripts");
    let out = crate::tribunal(
        &[
            "run",
            "arena",
            "--transcripts",
            transcripts.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = tool_results(&transcripts);
    let ran: Vec<Value> = results
        .iter()
        .filter_map(|r| serde_json::from_str::<Value>(r).ok())
        .filter(|v| v.get("exit_code").is_some())
        .collect();
    assert_eq!(ran.len(), 1, "{results:?}");
    assert_eq!(ran[0]["exit_code"], 1);
    assert_eq!(
        ran[0]["stdout"], "CHANGE.diff\nvalue.txt\n2\n",
        "{}",
        ran[0]
    );
    // run_command is not offered.
    std::fs::write(
        &dataset,
        format!("{}\n", item("run_command", serde_json::json!(["true"]))),
    )
    .unwrap();
    let all = lint_text(&arena);
    assert!(
        all.contains("the arena does not offer a tool named \"run_command\"; it offers `run_tests`, `list_files`, `read_file`, `grep`"),
        "{all}"
    );
    // No command for the item; the arena's command without run_tests.
    std::fs::write(&dataset, format!("{}\n", item("run_tests", Value::Null))).unwrap();
    let all = lint_text(&arena);
    assert!(
        all.contains("item bump: run_tests has no command to run: give the item a test_command, or the arena [sandbox] test_command"),
        "{all}"
    );
    std::fs::write(
        arena.join("arena.toml"),
        format!("{toml}test_command = [\"true\"]\n"),
    )
    .unwrap();
    assert!(
        !lint_text(&arena).contains("problem"),
        "{}",
        lint_text(&arena)
    );
    std::fs::write(
        arena.join("arena.toml"),
        toml.replace("run_tests = true\n", "test_command = [\"true\"]\n"),
    )
    .unwrap();
    let all = lint_text(&arena);
    assert!(
        all.contains("sandbox.test_command: has no effect without run_tests = true"),
        "{all}"
    );
}

/// A container engine is named with its image (lint), and a run refuses
/// before its first item when the client is not installed or its daemon
/// does not answer (no daemon on the machines this runs on), never falling
/// back to another engine.
#[test]
fn a_container_engine_needs_its_image_and_refuses_without_its_client() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    shell_arena(&arena, "[sandbox]\nengine = \"docker\"\n");
    let all = lint_text(&arena);
    assert!(
        all.contains(
            "sandbox.image: engine \"docker\" runs each command in a container of an image: name it"
        ),
        "{all}"
    );
    shell_arena(&arena, "[sandbox]\nimage = \"alpine:3\"\n");
    assert!(
        lint_text(&arena)
            .contains("sandbox.image: has no effect: engine \"bubblewrap\" runs no container"),
        "{}",
        lint_text(&arena)
    );
    // Here the client is installed without a daemon; elsewhere neither may
    // be. Either way: one coded refusal before the first item.
    shell_arena(
        &arena,
        "[sandbox]\nengine = \"docker\"\nimage = \"alpine:3\"\n",
    );
    let out = crate::tribunal(&["run", "arena"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("sandbox_unavailable: no sandbox: `docker` is not installed")
            || stderr.contains("sandbox_unavailable: no sandbox: the docker daemon is not reachable (`docker version` exited 1): "),
        "{stderr}"
    );
    assert!(
        !stderr.contains("PASS") && !stderr.contains("1 run(s)"),
        "{stderr}"
    );
}

/// `--toolchain rust` shows the machine's Rust toolchain to the command,
/// as `[sandbox] toolchains` does; without it there is no `rustc`; an
/// unknown name is refused by the command line.
#[test]
fn sandbox_shows_a_toolchain_only_when_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::tribunal(
        &["sandbox", "--toolchain", "rust", "--", "rustc", "--version"],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("\"stdout\":\"rustc "), "{stdout}");
    assert!(
        stderr.contains("toolchains read-only: /opt/toolchains/rust/bin"),
        "{stderr}"
    );
    let out = crate::tribunal(
        &["sandbox", "--", "sh", "-c", "command -v rustc"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let out = crate::tribunal(&["sandbox", "--toolchain", "go", "--", "true"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown toolchain `go` (one of: rust)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
