//! The code_review arena on the mock backend: every stored verdict, and the
//! public snapshot API over this repository's own arenas.

use std::path::{Path, PathBuf};
use tribunal_judge::snapshot::{SnapshotSource, arena_snapshot};
use tribunal_judge::{Arena, Outcome, RunOptions};
use tribunal_judge::{StoredVerdict, VerdictOutcome};

fn arena(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../arenas")
        .join(name)
}

#[tokio::test]
async fn code_review_mock_run_stored_verdicts() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let arena = Arena::load(&arena("code_review")).unwrap();
    assert!(arena.items.len() >= 12);
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions::new(dir.path().join("rows.jsonl")).with_concurrency(4);
    let result = tribunal_testkit::arenas::mock_run(&arena, &options).await;
    assert!(
        result.rows.iter().all(|r| r.outcome == Outcome::Pass),
        "{:#?}",
        result.rows
    );
    let (mut green, mut red) = (0, 0);
    for row in &result.rows {
        let stored = StoredVerdict::from_row(row);
        match stored.outcome {
            VerdictOutcome::Green => green += 1,
            VerdictOutcome::Red => red += 1,
            VerdictOutcome::Error(code) => panic!("{}: {code}", row.id),
        }
        // Stored as written: verdict first, then the owner fields.
        let keys: Vec<String> = stored
            .result
            .as_ref()
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys[0], "verdict");
        insta::assert_json_snapshot!(format!("code_review_verdict_{}", row.id), stored, {
            ".reproduction.config_hash" => "[hash]",
        });
    }
    assert!(green >= 5 && red >= 5, "{green} GREEN, {red} RED");
}

#[test]
fn snapshot_api_structured_output() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    tribunal_judge::assert_arena_snapshot!(
        "arena_structured_output",
        arena("structured_output").to_str().unwrap()
    );
}

#[test]
fn snapshot_api_code_review() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    tribunal_judge::assert_arena_snapshot!(
        "arena_code_review",
        arena("code_review").to_str().unwrap()
    );
}

#[tokio::test]
async fn snapshot_values_are_redacted_and_sorted() {
    let value = arena_snapshot(&arena("code_review"), &SnapshotSource::Mock)
        .await
        .unwrap();
    let report = &value["report"];
    assert_eq!(report["config_hash"], "[hash]");
    assert_eq!(report["items"][0]["wall_ms"], "[ms]");
    assert_eq!(report["items"][0]["tool_calls"][0]["duration_ms"], "[ms]");
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        value["verdicts"]["pagination_off_by_one#0"]["outcome"],
        "RED"
    );
}

#[test]
fn a_missing_arena_is_an_error_not_a_panic() {
    let err = tribunal_judge::snapshot::arena_snapshot_blocking(
        Path::new("/nonexistent/arena"),
        &SnapshotSource::Mock,
    );
    assert!(err.is_err());
}
