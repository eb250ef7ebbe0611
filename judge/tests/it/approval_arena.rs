//! `[approval]` in an arena: scripted decisions for the `ask` calls, the
//! `approvals` check, the records on the row, the config hash.

use tribunal_judge::{Arena, CheckKind, Outcome, RunOptions};
use tribunal_runtime::ApprovalOutcome;
use tribunal_runtime::ErrorCode;
use tribunal_testkit::arenas::{arena_dir, mock_run};

const CORPUS: &str =
    r#"[{"id": "paris", "title": "Paris", "text": "Paris is the capital of France."}]"#;

/// Two searches then an answer; the second check counts rejections.
fn dataset(rejected: (u32, u32)) -> String {
    format!(
        r#"{{"id": "capital", "input": "Capital of France?", "checks": [{{"type": "json_path_equals", "path": "answer", "value": "Paris"}}, {{"type": "approvals", "outcome": "rejected", "tool": "search", "min": {}, "max": {}}}, {{"type": "approvals", "outcome": "denied", "max": 0}}], "mock": [{{"tool_calls": [{{"name": "search", "arguments": {{"query": "France capital"}}}}]}}, {{"tool_calls": [{{"name": "search", "arguments": {{"query": "Paris"}}}}]}}, {{"json": {{"answer": "Paris"}}}}]}}"#,
        rejected.0, rejected.1
    )
}

const TOML: &str = r#"
tools = ["search"]
corpus = "corpus.json"

[approval]
tools = { search = "ask" }
decisions = [{ decision = "approve" }, { decision = "reject", reason = "One search is enough." }]
"#;

#[tokio::test]
async fn scripted_decisions_reach_the_row_and_the_approvals_check() {
    let dir = arena_dir(&[
        ("arena.toml", TOML),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &dataset((1, 1))),
    ]);
    let arena = Arena::load(dir.path()).unwrap();
    let result = mock_run(&arena, &RunOptions::in_memory()).await;
    let row = &result.rows[0];
    assert_eq!(row.outcome, Outcome::Pass, "{:?}", row.checks);
    let outcomes: Vec<ApprovalOutcome> = row.approvals.iter().map(|a| a.outcome).collect();
    assert_eq!(
        outcomes,
        [ApprovalOutcome::Approved, ApprovalOutcome::Rejected]
    );
    assert_eq!(
        row.approvals[1].reason.as_deref(),
        Some("One search is enough.")
    );
    assert_eq!(row.checks[1].kind, CheckKind::Approvals);
    assert_eq!(
        row.checks[1].detail,
        "1 call(s) of search rejected, 1 to 1 required"
    );
    // The rejected call did not run: one search executed... and counted.
    assert_eq!(row.tool_calls.iter().filter(|c| c.ok).count(), 1);

    // The check fails when the count is out of bounds.
    let dir = arena_dir(&[
        ("arena.toml", TOML),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &dataset((0, 0))),
    ]);
    let arena = Arena::load(dir.path()).unwrap();
    let row = mock_run(&arena, &RunOptions::in_memory())
        .await
        .rows
        .remove(0);
    assert_eq!(row.outcome, Outcome::Fail);
}

#[tokio::test]
async fn a_run_out_of_decisions_ends_approval_pending_and_the_table_is_in_the_hash() {
    let short = TOML.replace(
        r#"decisions = [{ decision = "approve" }, { decision = "reject", reason = "One search is enough." }]"#,
        r#"decisions = [{ decision = "approve" }]"#,
    );
    let dir = arena_dir(&[
        ("arena.toml", &short),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &dataset((1, 1))),
    ]);
    let arena = Arena::load(dir.path()).unwrap();
    let short_result = mock_run(&arena, &RunOptions::in_memory()).await;
    let row = &short_result.rows[0];
    assert_eq!(row.error_code, Some(ErrorCode::ApprovalPending));
    assert!(row.answer.is_none());
    let full = arena_dir(&[
        ("arena.toml", TOML),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &dataset((1, 1))),
    ]);
    let full = Arena::load(full.path()).unwrap();
    let full_result = mock_run(&full, &RunOptions::in_memory()).await;
    assert_ne!(short_result.config_hash, full_result.config_hash);
}

#[test]
fn approval_problems_are_linted() {
    let toml = TOML.replace(
        r#"search = "ask""#,
        r#"search = "ask", write_file = "deny""#,
    );
    let bad_check = dataset((1, 1)).replace(
        r#"{"type": "approvals", "outcome": "denied", "max": 0}"#,
        r#"{"type": "approvals", "outcome": "denied"}"#,
    );
    let dir = arena_dir(&[
        ("arena.toml", &toml),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &bad_check),
    ]);
    let text = tribunal_judge::lint(dir.path()).render();
    assert!(
        text.contains(r#"[approval] tools: "write_file" is not a tool of the arena"#),
        "{text}"
    );
    assert!(
        text.contains("approvals: give `min`, `max` or both"),
        "{text}"
    );
}

#[tokio::test]
async fn a_live_approver_decides_over_the_arena_and_gets_its_own_hash() {
    use std::sync::Arc;
    use tribunal_runtime::approver_fn;
    use tribunal_runtime::{ApprovalPolicy, Decision, ToolPolicy};
    let dir = arena_dir(&[
        ("arena.toml", TOML),
        ("corpus.json", CORPUS),
        ("dataset.jsonl", &dataset((0, 0))),
    ]);
    let arena = Arena::load(dir.path()).unwrap();
    let scripted = mock_run(&arena, &RunOptions::in_memory()).await;
    let person = approver_fn(|_| async { Decision::approve() });
    let options = RunOptions::in_memory()
        .with_approval(ApprovalPolicy::new(ToolPolicy::Ask), Arc::new(person));
    let live = mock_run(&arena, &options).await;
    let row = &live.rows[0];
    assert_eq!(row.outcome, Outcome::Pass, "{:?}", row.checks);
    assert!(
        row.approvals
            .iter()
            .all(|a| a.outcome == ApprovalOutcome::Approved)
    );
    assert_eq!(row.approvals.len(), 2);
    assert_ne!(live.config_hash, scripted.config_hash);
}
