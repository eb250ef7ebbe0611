//! Conversation items: the support_desk arena in mock mode, rows that show
//! the conversation, state checks that catch a broken rule, a fresh world
//! per run (20 repeats at concurrency 8 never see each other's state), and
//! a `user` with an unknown field refused.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tribunal_judge::internal::run::backends::BackendFactory;
use tribunal_judge::{Arena, Outcome, Report, ReportFormat};
use tribunal_runtime::OutputPlan;
use tribunal_runtime::{Backend, BackendError, DialogueEnd};
use tribunal_runtime::{BackendInfo, ModelRequest, ScriptedBackend};
use tribunal_runtime::{Message, ModelTurn, StopReason, ToolCall};
use tribunal_testkit::arenas::{arena_dir, arenas_dir, mock_run, options, run_on};

#[tokio::test]
async fn the_support_desk_passes_in_mock_mode_and_leaves_its_world_unchanged() {
    let dir = arenas_dir().join("support_desk");
    let world = std::fs::read(dir.join("world/orders.json")).unwrap();
    let arena = Arena::load(&dir).unwrap();
    assert!(arena.items.len() >= 20);
    let out = tempfile::tempdir().unwrap();
    let mut opts = options(&out.path().join("r.jsonl"));
    opts.repeat = 2;
    opts.concurrency = 8;
    let result = mock_run(&arena, &opts).await;
    let failed: Vec<_> = result
        .rows
        .iter()
        .filter(|r| r.outcome != Outcome::Pass)
        .map(|r| (&r.id, &r.checks, r.error_code))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    // Each run changed its own copy, never the arena's folder.
    assert_eq!(std::fs::read(dir.join("world/orders.json")).unwrap(), world);
    // The rows show the conversation turn by turn.
    let row = result
        .rows
        .iter()
        .find(|r| r.id == "address-pending")
        .unwrap();
    let talk = row.conversation.as_ref().unwrap();
    assert_eq!(talk.end, DialogueEnd::UserStopped);
    let said: Vec<_> = talk.exchanges.iter().map(|e| e.user.as_str()).collect();
    assert_eq!(
        said,
        [
            "I moved. Can you send my rug to my new address?",
            "It's di@example.com, order A1005.",
            "9 River Lane."
        ]
    );
    assert_eq!(talk.calls_per_turn, [0, 1, 1]);
    let text = std::fs::read_to_string(out.path().join("r.jsonl")).unwrap();
    assert!(text.contains(r#""conversation":{"end":{"by":"user_stopped"}"#));
    // pass^k is the headline over repeats.
    let report = Report::from_rows(&arena.name, &result.rows);
    assert_eq!(report.summary.pass_hat_k, 1.0);
    assert!(
        report
            .render(ReportFormat::Terminal)
            .contains("pass^2 100.0%")
    );
}

/// An item whose agent breaks a rule: the state check fails it.
#[tokio::test]
async fn a_broken_rule_is_found_in_the_final_state() {
    let dir = arenas_dir().join("support_desk");
    let toml = std::fs::read_to_string(dir.join("arena.toml")).unwrap();
    let world = std::fs::read_to_string(dir.join("world/orders.json")).unwrap();
    // Refunds the shipped kettle, which the rules forbid.
    let line = json!({
        "id": "refund-shipped-broken",
        "input": "I want a refund for my kettle.",
        "user": {"script": [{"when": "email", "say": "bo@example.com, A1002"}]},
        "checks": [{"type": "file_json", "path": "orders.json", "pointer": "/A1002/status", "value": "shipped"}],
        "mock": [
            {"text": "Your email and order number?"},
            {"tool_calls": [{"name": "update_record", "arguments": {"table": "orders", "id": "A1002", "changes": {"status": "refunded"}}}]},
            {"text": "Refunded."}
        ]
    });
    let tmp = arena_dir(&[("arena.toml", &toml), ("dataset.jsonl", &line.to_string())]);
    with_world(tmp.path(), "orders.json", &world);
    let arena = Arena::load(tmp.path()).unwrap();
    let result = mock_run(&arena, &options(&tmp.path().join("r.jsonl"))).await;
    let row = &result.rows[0];
    assert_eq!(row.outcome, Outcome::Fail);
    assert_eq!(
        row.checks[0].detail,
        r#"orders.json /A1002/status is "refunded", expected "shipped""#
    );
}

#[test]
fn a_user_with_an_unknown_field_is_refused() {
    let line = json!({
        "id": "x", "input": "hi",
        "user": {"script": [], "goal": "typo for instructions"},
        "checks": [{"type": "contains", "value": "x"}]
    });
    let tmp = arena_dir(&[("dataset.jsonl", &line.to_string())]);
    let err = Arena::load(tmp.path()).unwrap_err().to_string();
    assert!(err.contains("unknown field `goal`"), "{err}");
}

/// A model that checks its world is its own: reads the record (it must be
/// `new`), writes its own token, reads it back, and says ISOLATED only when
/// both reads were as it left them.
struct Prober {
    token: String,
}

impl Backend for Prober {
    fn info(&self) -> BackendInfo<'_> {
        BackendInfo {
            name: "prober",
            model: "prober",
            plan: OutputPlan::native(tribunal_runtime::SchemaTarget::Plain),
        }
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            // Let the other runs in flight interleave with this one.
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            let results: Vec<&str> = request
                .conversation
                .messages
                .iter()
                .filter_map(|m| match m {
                    Message::ToolResults { results } => Some(results[0].content.as_str()),
                    _ => None,
                })
                .collect();
            let call = |name: &str, arguments: Value| ModelTurn {
                tool_calls: vec![ToolCall {
                    id: format!("c{}", results.len()),
                    name: name.into(),
                    arguments: arguments.to_string(),
                }],
                stop: StopReason::ToolUse,
                ..ModelTurn::default()
            };
            Ok(match results.len() {
                0 => call("get_record", json!({"table": "box", "id": "x"})),
                1 => call(
                    "update_record",
                    json!({"table": "box", "id": "x", "changes": {"state": self.token}}),
                ),
                // Not `get_record` again: a repeated call is not run.
                2 => call(
                    "find_records",
                    json!({"table": "box", "field": "state", "value": self.token}),
                ),
                _ => {
                    let fresh = results[0].contains(r#""state":"new""#);
                    let mine = results[2].contains(&self.token);
                    ModelTurn {
                        text: match fresh && mine {
                            true => "ISOLATED".into(),
                            false => format!("SHARED: {results:?}"),
                        },
                        ..ModelTurn::default()
                    }
                }
            })
        })
    }
}

struct Probers(AtomicU64);

impl BackendFactory for Probers {
    fn name(&self) -> &str {
        "prober"
    }
    fn model(&self) -> &str {
        "prober"
    }
    fn is_mock(&self) -> bool {
        true
    }
    fn output_plan(&self) -> OutputPlan {
        ScriptedBackend::from_turns([]).output_plan()
    }
    fn backend_for(&self, _: &tribunal_judge::Item) -> Arc<dyn Backend> {
        let n = self.0.fetch_add(1, Ordering::SeqCst);
        Arc::new(Prober {
            token: format!("run-{n}"),
        })
    }
}

#[tokio::test]
async fn twenty_repeats_at_concurrency_8_never_see_each_others_world() {
    let line = json!({
        "id": "probe",
        "input": "go",
        "user": {"script": []},
        "checks": [{"type": "contains", "value": "ISOLATED"}]
    });
    let tmp = arena_dir(&[
        (
            "arena.toml",
            "name = \"probe\"\ntools = [\"records\"]\nfiles_root = \"world\"\n",
        ),
        ("dataset.jsonl", &line.to_string()),
    ]);
    with_world(tmp.path(), "box.json", r#"{"x": {"state": "new"}}"#);
    let arena = Arena::load(tmp.path()).unwrap();
    let mut opts = options(&tmp.path().join("r.jsonl"));
    opts.repeat = 20;
    opts.concurrency = 8;
    let result = run_on(&arena, Arc::new(Probers(AtomicU64::new(0))), &opts)
        .await
        .unwrap();
    assert_eq!(result.rows.len(), 20);
    for row in &result.rows {
        assert_eq!(row.outcome, Outcome::Pass, "{:?}", row.answer);
    }
    let kept = std::fs::read_to_string(tmp.path().join("world/box.json")).unwrap();
    assert_eq!(kept, r#"{"x": {"state": "new"}}"#);
}

/// Writes `file` into the `world/` folder of the arena in `dir`.
fn with_world(dir: &std::path::Path, file: &str, text: &str) {
    std::fs::create_dir_all(dir.join("world")).unwrap();
    std::fs::write(dir.join("world").join(file), text).unwrap();
}

/// The user simulator's prompt is part of a conversation arena's config
/// hash (and of no other arena's).
#[test]
fn the_user_simulators_prompt_enters_the_config_hash() {
    let plain = json!({"id": "x", "input": "hi", "checks": [{"type": "contains", "value": "x"}]});
    let talk = json!({"id": "x", "input": "hi", "user": {"script": []},
                      "checks": [{"type": "contains", "value": "x"}]});
    let hash = |line: &Value| {
        let tmp = arena_dir(&[("dataset.jsonl", &line.to_string())]);
        let arena = Arena::load(tmp.path()).unwrap();
        let plan = ScriptedBackend::from_turns([]).output_plan();
        tribunal_judge::internal::run::hash::config_hash(&arena, "mock", "scripted", &plan)
    };
    assert_ne!(hash(&plain), hash(&talk));
}

/// A world whose table is a symlink to a file outside it: the copy keeps
/// the link, the record tools refuse it, the state check does not follow
/// it, and the file outside is never changed.
#[cfg(unix)]
#[tokio::test]
async fn a_symlink_out_of_the_world_is_never_followed() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("orders.json");
    std::fs::write(&target, r#"{"A1": {"status": "delivered"}}"#).unwrap();
    let line = json!({
        "id": "escape",
        "input": "refund A1",
        "user": {"script": []},
        "checks": [{"type": "file_json", "path": "orders.json", "pointer": "/A1/status", "value": "delivered"}],
        "mock": [
            {"tool_calls": [{"name": "update_record", "arguments": {"table": "orders", "id": "A1", "changes": {"status": "refunded"}}}]},
            {"text": "Done."}
        ]
    });
    let tmp = arena_dir(&[
        (
            "arena.toml",
            "name = \"escape\"\ntools = [\"records\"]\nfiles_root = \"world\"\n",
        ),
        ("dataset.jsonl", &line.to_string()),
    ]);
    std::fs::create_dir_all(tmp.path().join("world")).unwrap();
    std::os::unix::fs::symlink(&target, tmp.path().join("world/orders.json")).unwrap();
    let arena = Arena::load(tmp.path()).unwrap();
    let result = mock_run(&arena, &options(&tmp.path().join("r.jsonl"))).await;
    let row = &result.rows[0];
    assert!(!row.tool_calls[0].ok, "the update was refused");
    assert_eq!(row.outcome, Outcome::Fail);
    assert!(
        row.checks[0].detail.contains("outside the world"),
        "{}",
        row.checks[0].detail
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        r#"{"A1": {"status": "delivered"}}"#
    );
}

/// The first items of support_desk as recorded against llama-server with
/// Qwen2.5-Coder-0.5B-Instruct playing both the agent and the user, the
/// user under its version 2 prompt (LIVE.md, "Talking the simulated user
/// into stopping"), replayed: no server, no key. A change in
/// what either side is sent makes a request the cassette has no answer
/// for; a change in how the conversation is scored changes the snapshot.
#[test]
fn support_desk_replayed_from_a_real_small_model() {
    const RECORDED: usize = 6;
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let dir = arenas_dir().join("support_desk");
    let text = std::fs::read_to_string(dir.join("dataset.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().take(RECORDED).collect();
    let toml = std::fs::read_to_string(dir.join("arena.toml")).unwrap();
    let tmp = arena_dir(&[("arena.toml", &toml), ("dataset.jsonl", &lines.join("\n"))]);
    let world = std::fs::read_to_string(dir.join("world/orders.json")).unwrap();
    with_world(tmp.path(), "orders.json", &world);
    let cassette = dir.join("cassettes/support_desk.jsonl");
    let value = tribunal_judge::snapshot::arena_snapshot_blocking(
        tmp.path(),
        &tribunal_judge::snapshot::SnapshotSource::Replay(cassette),
    )
    .unwrap();
    insta::assert_json_snapshot!("live_support_desk_qwen05b", value);
}
