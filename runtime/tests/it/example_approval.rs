//! `examples/approval.rs` runs: the first process pauses at the write and
//! leaves the snapshot on disk without writing the file; the second
//! approves (the file is written) or rejects (it is not, and the model
//! reads the reason).

#[path = "../../examples/approval.rs"]
mod approval_example;

use tribunal_runtime::Message;
use tribunal_runtime::{ApprovalOutcome, Decision};

#[tokio::test]
async fn the_approval_example_pauses_then_writes_once_approved() {
    let dir = tempfile::tempdir().unwrap();
    let waiting = approval_example::start(dir.path()).await.unwrap();
    assert_eq!(
        waiting,
        [r#"write_file {"name":"notes.txt","text":"approved by a person\n"}"#]
    );
    assert!(dir.path().join("snapshot.json").exists());
    assert!(
        !dir.path().join("notes.txt").exists(),
        "written before approval"
    );

    let finished = approval_example::finish(dir.path(), Decision::approve())
        .await
        .unwrap();
    assert!(finished.report.is_ok(), "{:?}", finished.report.outcome);
    assert_eq!(
        finished.report.approvals[0].outcome,
        ApprovalOutcome::Approved
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "approved by a person\n"
    );
    assert!(!dir.path().join("snapshot.json").exists());
}

#[tokio::test]
async fn a_rejected_write_writes_nothing_and_the_model_reads_why() {
    let dir = tempfile::tempdir().unwrap();
    approval_example::start(dir.path()).await.unwrap();
    let finished = approval_example::finish(dir.path(), Decision::reject("not today"))
        .await
        .unwrap();
    assert!(!dir.path().join("notes.txt").exists());
    assert_eq!(
        finished.report.approvals[0].outcome,
        ApprovalOutcome::Rejected
    );
    let read = finished.conversation.messages.iter().find_map(|m| match m {
        Message::ToolResults { results } => results.first().map(|r| r.content.clone()),
        _ => None,
    });
    assert_eq!(
        read.as_deref(),
        Some("error: not executed: the call was rejected: not today")
    );
}
