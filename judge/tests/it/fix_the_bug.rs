//! The fix_the_bug arena: each item's tests fail on its code as given and
//! pass once its mock's fix is written (through the writing tools, in the
//! sandbox, as a run does); the mock run passes every item; a run that
//! leaves the bug is a FAIL whose detail holds the tests' exit and output.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_judge::Check;
use tribunal_judge::{Arena, Outcome, RunOptions};
use tribunal_runtime::ScriptStep;
use tribunal_runtime::ToolBox;
use tribunal_runtime::ToolCall;
use tribunal_tools::WriteTools;
use tribunal_tools::shell::{CommandSandbox, SandboxLimits, WorkingFolder};

fn arena() -> Arena {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/fix_the_bug");
    Arena::load(&dir).unwrap()
}

/// The command of an item's one `command_passes` check.
fn command(item: &tribunal_judge::Item) -> Vec<String> {
    let commands: Vec<&Vec<String>> = item
        .checks
        .iter()
        .filter_map(|c| match &c.check {
            Check::CommandPasses { command, .. } => Some(command),
            _ => None,
        })
        .collect();
    assert_eq!(commands.len(), 1, "{}", item.id);
    commands[0].clone()
}

/// The mock's calls of `write_file` and `apply_patch`: the item's fix.
fn fix_calls(item: &tribunal_judge::Item) -> Vec<ToolCall> {
    let steps = item.mock.as_ref().unwrap();
    steps
        .iter()
        .filter_map(|step| match step {
            ScriptStep::Turn(turn) => Some(turn.tool_calls.clone()),
            ScriptStep::Fail(_) => None,
        })
        .flatten()
        .filter(|c| c.name == tribunal_tools::WRITE_FILE || c.name == tribunal_tools::APPLY_PATCH)
        .collect()
}

/// `command` run in the sandbox on `dir`: its exit code and output.
async fn run(sandbox: &CommandSandbox, dir: &Path, command: &[String]) -> (Option<i32>, String) {
    let ran = sandbox
        .run(dir, command, &[], &SandboxLimits::default())
        .await
        .unwrap();
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    (ran.exit_code, output)
}

#[tokio::test]
async fn every_item_fails_as_given_and_passes_with_its_mock_fix() {
    let arena = arena();
    assert!(arena.items.len() >= 15, "{} items", arena.items.len());
    let sandbox = CommandSandbox::detect().await.unwrap();
    let temp = tempfile::tempdir().unwrap();
    for item in &arena.items {
        let command = command(item);
        let copy = WorkingFolder::copy_of(&arena.world_dir(item), temp.path(), "fix").unwrap();
        sandbox.prepare(copy.path()).unwrap();
        let (code, output) = run(&sandbox, copy.path(), &command).await;
        assert_ne!(
            code,
            Some(0),
            "{}: the tests pass on the buggy code:\n{output}",
            item.id
        );
        // The input shows the failure the agent is to fix.
        assert!(item.input.contains("The tests fail"), "{}", item.id);
        let calls = fix_calls(item);
        assert!(!calls.is_empty(), "{}: the mock writes no fix", item.id);
        let mut tools = ToolBox::new();
        let owner = Arc::new(sandbox.clone());
        WriteTools::new(copy.path())
            .unwrap()
            .with_after_write(move |p| owner.prepare(p))
            .add_to(&mut tools);
        for call in &calls {
            let result = tools.execute(call).await.result;
            assert!(!result.is_error, "{}: {}", item.id, result.content);
        }
        let (code, output) = run(&sandbox, copy.path(), &command).await;
        assert_eq!(
            code,
            Some(0),
            "{}: the fix does not pass:\n{output}",
            item.id
        );
    }
}

#[tokio::test]
async fn the_mock_run_passes_every_item_on_the_tests_of_its_final_copy() {
    let arena = arena();
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions::new(dir.path().join("rows.jsonl")).with_concurrency(2);
    let result = tribunal_testkit::arenas::mock_run(&arena, &options).await;
    assert_eq!(result.rows.len(), arena.items.len());
    for row in &result.rows {
        assert_eq!(row.outcome, Outcome::Pass, "{row:#?}");
        let check = &row.checks[0];
        assert!(
            check.detail.starts_with("exit 0; output: "),
            "{}",
            check.detail
        );
    }
}

#[tokio::test]
async fn a_run_that_leaves_the_bug_fails_with_the_exit_and_output_of_the_tests() {
    let mut arena = arena();
    arena.select_items(&["pagination_off_by_one".to_string()], None);
    // The mock without its fix: it runs the tests, then answers.
    let item = &mut arena.items[0];
    let steps: Vec<ScriptStep> = item.mock.as_ref().unwrap().to_vec();
    let kept: Vec<ScriptStep> = vec![steps[0].clone(), steps[steps.len() - 1].clone()];
    item.mock = Some(Arc::from(kept));
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions::new(dir.path().join("rows.jsonl"));
    let result = tribunal_testkit::arenas::mock_run(&arena, &options).await;
    let row = &result.rows[0];
    assert_eq!(row.outcome, Outcome::Fail);
    let detail = &row.checks[0].detail;
    assert!(
        detail.starts_with("exit 1; output: ") && detail.contains("FAILED (failures=1)"),
        "{detail}"
    );
}

/// Where the arena's items live, for the folder check below.
fn items_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/fix_the_bug/items")
}

#[test]
fn each_item_has_its_own_folder_and_no_other() {
    let arena = arena();
    let mut folders: Vec<String> = std::fs::read_dir(items_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut ids: Vec<String> = arena.items.iter().map(|i| i.id.clone()).collect();
    ids.sort();
    assert_eq!(folders, ids);
}

/// The live run of a real small model (Qwen2.5-Coder-0.5B on llama.cpp,
/// LIVE.md), every item, replayed from its cassette: its edits land in fresh copies
/// and the tests run on them again, so the rows are the recorded run's
/// (timings redacted). A change in what is sent or how the copy is
/// scored fails here.
#[tokio::test]
async fn the_live_run_replays_from_its_cassette() {
    use tribunal_judge::{Environment, RunPlan};
    use tribunal_runtime::BackendKind;
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let arena = arena();
    let ready = RunPlan::live(BackendKind::OpenAiChat, "qwen")
        .with_replay(Some(arena.dir.join("cassettes")))
        .with_deadline(Some(std::time::Duration::from_secs(900)))
        .prepare(&arena, &Environment::empty())
        .unwrap()
        .start_tools()
        .await
        .unwrap();
    let options = RunOptions::in_memory();
    let result = ready.run(&options, &tribunal_judge::Silent).await.unwrap();
    let timing = regex::Regex::new(r"in \d+\.\d+s").unwrap();
    let mut rows: Vec<&tribunal_judge::ResultRow> = result.rows.iter().collect();
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    let rows: Vec<serde_json::Value> = rows
        .into_iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "outcome": r.outcome,
                "error_code": r.error_code.map(|c| c.as_str()),
                "tools": r.tool_calls.iter().map(|c| format!("{} ok={}", c.name, c.ok)).collect::<Vec<_>>(),
                // The tests' exit (or limit) and whether their output was
                // kept; the output itself holds the test runners' timings
                // (node's duration_ms), and its clipped window moves with them.
                "checks": r.checks.iter().map(|c| {
                    let (head, output) = match c.detail.split_once("; output: ") {
                        Some((head, output)) => (head, !output.is_empty()),
                        None => (c.detail.as_str(), false),
                    };
                    let head = timing.replace_all(head, "in [s]").into_owned();
                    if output { format!("{head}; output: [kept]") } else { head }
                }).collect::<Vec<_>>(),
                "usage": r.usage,
            })
        })
        .collect();
    insta::assert_json_snapshot!("live_fix_the_bug_qwen05b", rows);
}
