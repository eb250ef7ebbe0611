//! A run paused at an approval point survives its process: the snapshot is
//! written to disk, every in-memory object is dropped, and a child process
//! of this test binary resumes it and finishes with the report, approval
//! records and conversation of the same run left uninterrupted. Both sides
//! replay one cassette, recorded from the uninterrupted run.

use crate::approval_trace::{policy, toolbox};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::Decision;
use tribunal_runtime::Run;
use tribunal_runtime::ScriptedApprover;
use tribunal_runtime::{Agent, Backend, ErrorCode};
use tribunal_runtime::{Recording, Replay, ScriptedBackend};
use tribunal_runtime::{RunEnd, RunSnapshot};
use tribunal_testkit::agents::*;

/// The variable that turns [`resume_in_child`] from a no-op into the
/// child's side of the test: the folder holding the cassette and snapshot.
const CHILD_DIR: &str = "TRIBUNAL_TEST_RESUME_DIR";

/// The model: three calls (two asking), then one more, then the answer.
fn model() -> Vec<tribunal_runtime::ModelTurn> {
    vec![
        calls(&[
            ("write", json!({"path": "a", "text": "one"})),
            ("read", json!({"path": "a"})),
            ("write", json!({"path": "/etc/b", "text": "two"})),
        ]),
        calls(&[("write", json!({"path": "c", "text": "three"}))]),
        answer(&eiffel()),
    ]
}

/// Every decision of the run, in the order asked.
fn decisions() -> Vec<Decision> {
    vec![
        Decision::approve(),
        Decision::reject("not under /etc"),
        Decision::modify(json!({"path": "d", "text": "three"})),
    ]
}

fn agent(backend: Arc<dyn Backend>, decided: Vec<Decision>) -> Agent {
    Agent::new(backend, Arc::new(landmark_schema()))
        .unwrap()
        .with_tools(toolbox())
        .with_approval(policy(), Arc::new(ScriptedApprover::new(decided)))
}

fn replay(dir: &Path) -> Arc<dyn Backend> {
    Arc::new(Replay::from_file(dir.join("model.jsonl")).unwrap())
}

/// A finished run as JSON, without its timings.
fn comparable(finished: &Run) -> Value {
    let mut report = serde_json::to_value(&finished.report).unwrap();
    report["wall_ms"] = json!(0);
    for call in report["tool_calls"].as_array_mut().unwrap() {
        call["duration_ms"] = json!(0);
    }
    json!({
        "report": report,
        "approvals": finished.report.approvals,
        "conversation": finished.conversation,
    })
}

#[tokio::test]
async fn a_run_paused_in_one_process_finishes_in_another_as_the_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    // The uninterrupted run, recorded.
    let recorded = Recording::new(
        ScriptedBackend::from_turns(model()),
        dir.path().join("model.jsonl"),
    )
    .unwrap();
    let whole = agent(Arc::new(recorded), decisions())
        .start("go")
        .await
        .finished()
        .unwrap();
    assert!(whole.report.is_ok(), "{:?}", whole.report.outcome);
    let outcomes: Vec<&str> = whole
        .report
        .approvals
        .iter()
        .map(|a| a.outcome.as_str())
        .collect();
    assert_eq!(outcomes, ["approved", "rejected", "modified"]);

    // The same run, replayed, paused at its second ask: the snapshot goes to
    // disk and everything else is dropped.
    {
        let paused = agent(replay(dir.path()), decisions()[..1].to_vec())
            .start("go")
            .await;
        let RunEnd::Paused(snapshot) = paused else {
            panic!("the run did not pause: {paused:?}");
        };
        let pending: Vec<String> = snapshot
            .pending_calls()
            .iter()
            .map(|p| format!("{}#{}", p.call.name, p.index))
            .collect();
        assert_eq!(pending, ["write#2"]);
        std::fs::write(
            dir.path().join("snapshot.json"),
            snapshot.to_json().unwrap(),
        )
        .unwrap();
    }

    // A child process of this binary resumes it.
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "approval_resume::resume_in_child",
            "--exact",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir.path())
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "the child failed: {}\n{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    // It ran the one test, which wrote the run (a filter that matched no
    // test would succeed too).
    assert!(
        String::from_utf8_lossy(&child.stdout).contains("1 passed"),
        "{}",
        String::from_utf8_lossy(&child.stdout)
    );
    let resumed: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("resumed.json")).unwrap())
            .unwrap();
    assert_eq!(resumed, comparable(&whole));
}

/// The child's side of the test above, run only in the child process it
/// starts (with [`CHILD_DIR`] set): resumes the snapshot on disk with the
/// decisions still to make and writes the finished run beside it.
#[tokio::test]
async fn resume_in_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    let snapshot =
        RunSnapshot::from_json(&std::fs::read_to_string(dir.join("snapshot.json")).unwrap())
            .unwrap();
    // The agent's own approver has nothing: every decision comes with the resume.
    let resumed = agent(replay(dir), Vec::new())
        .resume(snapshot, decisions()[1..].to_vec())
        .await
        .unwrap()
        .finished()
        .unwrap();
    let text = serde_json::to_string(&comparable(&resumed)).unwrap();
    std::fs::write(dir.join("resumed.json"), text).unwrap();
}

#[tokio::test]
async fn an_agent_with_other_tools_refuses_the_snapshot_with_its_own_code() {
    let paused = agent(Arc::new(ScriptedBackend::from_turns(model())), Vec::new())
        .start("go")
        .await
        .paused()
        .unwrap();
    let json = paused.to_json().unwrap();
    let other = Agent::new(
        Arc::new(ScriptedBackend::from_turns(model())) as Arc<dyn Backend>,
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_tools(toolbox().with(crate::approval_trace::Schema {
        name: "shell",
        schema: json!({"type": "object"}),
    }));
    let refused = other
        .resume(
            RunSnapshot::from_json(&json).unwrap(),
            vec![Decision::approve()],
        )
        .await
        .map(|_| ())
        .map_err(|e| e.code());
    assert_eq!(refused, Err(ErrorCode::SnapshotMismatch));
}

#[tokio::test]
async fn a_run_that_cannot_pause_ends_with_approval_pending_and_the_call_never_runs() {
    let run = agent(Arc::new(ScriptedBackend::from_turns(model())), Vec::new())
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::ApprovalPending)
    );
    assert!(run.report.tool_calls.is_empty());
}

#[tokio::test]
async fn a_streamed_run_tells_each_ask_and_each_decision() {
    use futures::StreamExt;
    use tribunal_runtime::RunEvent;
    let agent = agent(Arc::new(ScriptedBackend::from_turns(model())), decisions());
    let events: Vec<RunEvent> = agent.run_stream("go").collect().await;
    let told: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ApprovalRequested(p) => Some(format!("ask {}#{}", p.call.name, p.index)),
            RunEvent::Approval(r) => Some(format!("{} {}", r.call_id, r.outcome.as_str())),
            RunEvent::ToolCalls(calls) => Some(format!("run {}", calls.len())),
            RunEvent::Finished(run) => Some(format!("finished ok={}", run.report.is_ok())),
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [
            "ask write#0",
            "c0 approved",
            "ask write#2",
            "c2 rejected",
            "run 2",
            "ask write#0",
            "c0 modified",
            "run 1",
            "finished ok=true",
        ]
    );
}

#[tokio::test]
async fn a_closure_approver_decides_from_the_call() {
    use tribunal_runtime::approver_fn;
    let approver = approver_fn(|pending| async move {
        if pending.call.arguments.contains("/etc") {
            Decision::reject("not under /etc")
        } else {
            Decision::approve()
        }
    });
    let end = Agent::new(
        Arc::new(ScriptedBackend::from_turns(model())) as Arc<dyn Backend>,
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_tools(toolbox())
    .with_approval(policy(), Arc::new(approver))
    .start("go")
    .await
    .finished()
    .unwrap();
    let outcomes: Vec<(&str, &str)> = end
        .report
        .approvals
        .iter()
        .map(|a| (a.call_id.as_str(), a.outcome.as_str()))
        .collect();
    assert_eq!(
        outcomes,
        [("c0", "approved"), ("c2", "rejected"), ("c0", "approved")]
    );
    assert_eq!(
        end.report.approvals[1].reason.as_deref(),
        Some("not under /etc")
    );
}

/// A custom driver's view: `drive` has no approver, so a call that asks
/// ends the run with `approval_pending`; `drive_approved` pauses there.
#[tokio::test]
async fn the_public_drivers_end_or_pause_at_an_asking_call() {
    use tribunal_runtime::internal::approval::ArgumentCheck;
    use tribunal_runtime::internal::driver::{drive, drive_approved};
    use tribunal_runtime::internal::machine::{Machine, MachineConfig};
    let tools = Arc::new(toolbox());
    let backend = ScriptedBackend::from_turns(model());
    let machine = || {
        let config = MachineConfig {
            budget: tribunal_runtime::Budget::default(),
            answer: tribunal_runtime::AnswerPolicy::default(),
            max_output_tokens: None,
            plan: backend.output_plan(),
            require_tool_first: false,
        };
        Machine::new(
            config,
            Arc::new(landmark_schema()),
            tools.specs(),
            tribunal_runtime::Conversation::new(None, "go"),
            std::time::Instant::now(),
        )
        .unwrap()
        .with_approval(policy(), tools.clone() as Arc<dyn ArgumentCheck>)
    };
    let (report, _) = drive(machine(), &backend, &tools).await;
    assert_eq!(
        report.outcome.error_code(),
        Some(ErrorCode::ApprovalPending)
    );
    assert!(report.tool_calls.is_empty());
    let backend = ScriptedBackend::from_turns(model());
    let nobody = ScriptedApprover::new([]);
    let end = drive_approved(machine(), &backend, &tools, &nobody, None).await;
    let snapshot = end.paused().unwrap();
    assert_eq!(snapshot.pending_calls().len(), 2);
}

#[tokio::test]
async fn a_pausable_stream_ends_with_the_snapshot_when_nobody_decides() {
    use futures::StreamExt;
    use tribunal_runtime::RunEvent;
    let agent = agent(
        Arc::new(ScriptedBackend::from_turns(model())),
        decisions()[..1].to_vec(),
    );
    let events: Vec<RunEvent> = agent.start_stream("go").collect().await;
    let told: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ApprovalRequested(p) => Some(format!("ask {}#{}", p.call.name, p.index)),
            RunEvent::Approval(r) => Some(format!("{} {}", r.call_id, r.outcome.as_str())),
            RunEvent::Paused(s) => Some(format!("paused, {} waiting", s.pending_calls().len())),
            RunEvent::Finished(_) => Some("finished".into()),
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [
            "ask write#0",
            "c0 approved",
            "ask write#2",
            "paused, 1 waiting"
        ]
    );
}
