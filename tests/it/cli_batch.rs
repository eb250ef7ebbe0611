//! `tribunal run --batch` against a local fake of the providers' batch APIs
//! (`tribunal_testkit::batch`): the same report as the online run on the same fake, one
//! batch per round, no lost rows, a killed run resumed without paying twice,
//! and failures inside a batch as their items' `backend_error`s.

use crate::stand_in::{self, ALL, Api, FAKE_KEY, REPAIRED_ID, arena, live_env, stderr, stdout};
use crate::{json_lines, without_timings};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};
use tribunal_testkit::batch::{Fake, Player, Script};

/// Runs `tribunal run ARENA --backend API --model test-model ARGS` against
/// `fake`, with the report as JSON on stdout.
async fn run(
    api: Api,
    fake: &Fake,
    arena: &Path,
    out: &Path,
    args: &[&str],
) -> std::process::Output {
    let all = stand_in::run_args_for(arena, api, out, args);
    let dir = out.parent().unwrap();
    stand_in::tribunal(&all, dir, &live_env(api, &fake.server)).await
}

/// The report without what must differ between an online and a batch run:
/// timings and the config hash.
fn comparable(report: &str) -> Value {
    let mut report: Value = serde_json::from_str(report).unwrap();
    report["config_hash"] = Value::Null;
    without_timings(report)
}

const BATCH: [&str; 3] = ["--batch", "--batch-poll-secs", "0.02"];

#[tokio::test]
async fn a_batch_run_gives_the_online_report_in_one_round_per_turn_on_every_api() {
    for api in ALL {
        let fake = Fake::landmarks(api, Script::default()).await;
        let dir = tempfile::tempdir().unwrap();
        let online = run(api, &fake, &arena(), &dir.path().join("online.jsonl"), &[]).await;
        assert_eq!(
            online.status.code(),
            Some(0),
            "{api:?}: {}",
            stderr(&online)
        );
        let asked_online = fake.ledger().online;
        assert!(fake.ledger().batches.is_empty());

        let out = dir.path().join("batch.jsonl");
        let batch = run(api, &fake, &arena(), &out, &BATCH).await;
        assert_eq!(batch.status.code(), Some(0), "{api:?}: {}", stderr(&batch));
        assert_eq!(
            comparable(&stdout(&batch)),
            comparable(&stdout(&online)),
            "{api:?}"
        );
        let ledger = fake.ledger();
        assert_eq!(ledger.online, asked_online, "{api:?}: no online request");
        // Search, answer, and the repair of one item: three rounds, each
        // one batch of the turns of every item still going.
        let sizes: Vec<usize> = ledger.batches.iter().map(|(_, n)| *n).collect();
        assert_eq!(sizes, [15, 15, 1], "{api:?}");
        let unique: HashSet<&String> = ledger.submitted.iter().collect();
        assert_eq!(unique.len(), ledger.submitted.len(), "{api:?}: paid twice");
        assert!(
            ledger.submitted.iter().any(|id| id == "i7-r0-t3"),
            "{api:?}: the repair of {REPAIRED_ID} (item 7) is its third turn: {:?}",
            ledger.submitted
        );
        let err = stderr(&batch);
        assert!(
            err.contains("batch round 3: 1 submitted in 1 batch(es); 1 completed, 0 failed"),
            "{api:?}: {err}"
        );
        let rows = json_lines(&out);
        assert_eq!(rows.len(), 15);
        assert!(rows.iter().all(|r| r["batch"] == true), "{api:?}");
        // The journal beside the results names every batch.
        let journal = std::fs::read_to_string(dir.path().join("batch.jsonl.batches")).unwrap();
        for (id, _) in &ledger.batches {
            assert!(journal.contains(id.as_str()), "{api:?}: {id}");
        }
        assert!(!journal.contains(FAKE_KEY));
    }
}

#[tokio::test]
async fn a_batch_run_killed_while_waiting_resumes_by_polling_the_same_batches() {
    for (api, kill_in) in [(Api::Chat, 1), (Api::Anthropic, 2)] {
        let fake = Fake::landmarks(api, Script::default()).await;
        // Round `kill_in`'s batch stays in progress until released.
        fake.hold_from(kill_in);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("batch.jsonl");
        let journal = dir.path().join("batch.jsonl.batches");
        let args = stand_in::run_args(api, &out, &BATCH);
        let mut cmd = tokio::process::Command::new(crate::tribunal_bin());
        cmd.args(&args)
            .current_dir(dir.path())
            .env_clear()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        for (k, v) in live_env(api, &fake.server) {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        // Wait for the held batch to be created and journaled.
        let started = Instant::now();
        loop {
            let submitted = std::fs::read_to_string(&journal)
                .unwrap_or_default()
                .matches("\"submitted\"")
                .count();
            if submitted == kill_in {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{api:?}: no batch"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // kill -9 while it polls.
        child.kill().await.unwrap();
        assert_eq!(fake.ledger().batches.len(), kill_in, "{api:?}");
        assert!(json_lines(&out).is_empty(), "{api:?}: no run had finished");

        fake.release();
        let resumed = run(
            api,
            &fake,
            &arena(),
            &out,
            &[BATCH[0], BATCH[1], BATCH[2], "--resume"],
        )
        .await;
        assert_eq!(
            resumed.status.code(),
            Some(0),
            "{api:?}: {}",
            stderr(&resumed)
        );
        let ledger = fake.ledger();
        let mut seen = HashSet::new();
        for id in &ledger.submitted {
            assert!(seen.insert(id), "{api:?}: {id} was submitted twice");
        }
        assert_eq!(ledger.submitted.len(), 31, "{api:?}");
        let sizes: Vec<usize> = ledger.batches.iter().map(|(_, n)| *n).collect();
        assert_eq!(sizes, [15, 15, 1], "{api:?}");
        assert_eq!(ledger.online, 0);
        let err = stderr(&resumed);
        assert!(err.contains("15 resumed"), "{api:?}: {err}");
        let rows = json_lines(&out);
        assert_eq!(rows.len(), 15);
        assert!(rows.iter().all(|r| r["outcome"] == "PASS"), "{api:?}");
    }
}

#[tokio::test]
async fn an_expired_batch_and_a_refused_request_are_backend_errors_of_their_items() {
    for (api, expired_type, refused) in [
        (Api::Chat, "batch_expired", ("http", Some(400))),
        (Api::Responses, "batch_expired", ("http", Some(400))),
        (Api::Anthropic, "expired", ("batch", None)),
    ] {
        let script = Script {
            expire_after: Some(12),
            refuse: Some("Eiffel Tower".to_string()),
            ..Script::default()
        };
        let fake = Fake::landmarks(api, script).await;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("batch.jsonl");
        let o = run(api, &fake, &arena(), &out, &BATCH).await;
        assert_eq!(o.status.code(), Some(1), "{api:?}: {}", stderr(&o));
        let rows = json_lines(&out);
        assert_eq!(rows.len(), 15, "{api:?}: no row is lost");
        let failure = |id: &str| {
            let row = rows.iter().find(|r| r["id"] == id).unwrap();
            assert_eq!(row["outcome"], "ERROR", "{api:?}: {row}");
            assert_eq!(row["error_code"], "backend_error", "{api:?}: {row}");
            row["backend_failure"].clone()
        };
        // The first turns of the last three items expired: a batch holds
        // its requests in dataset order.
        let last = stand_in::dataset_ids().pop().unwrap();
        let expired = failure(&last);
        assert_eq!(expired["kind"], "batch", "{api:?}");
        assert_eq!(expired["provider_type"], expired_type, "{api:?}");
        let refused_row = failure("eiffel-tower");
        assert_eq!(refused_row["kind"], refused.0, "{api:?}");
        assert_eq!(refused_row["status"], json!(refused.1), "{api:?}");
        assert_eq!(
            refused_row["provider_type"], "invalid_request_error",
            "{api:?}"
        );
        let errors = rows.iter().filter(|r| r["outcome"] == "ERROR").count();
        // One refused, three expired in round 1; later rounds hold fewer
        // requests than expire_after.
        assert_eq!(errors, 4, "{api:?}");
    }
}

/// A model that refuses a sampling setting inside a batch (OpenAI: the
/// temperature, as reasoning models do; Anthropic: a temperature beside a
/// top_p) is asked again without it in the next round, as online: no
/// ERROR, and the rows say what was refused.
#[tokio::test]
async fn a_sampling_setting_refused_inside_a_batch_is_sent_again_without_it() {
    for (api, refused) in [
        (Api::Chat, "temperature"),
        (Api::Responses, "temperature"),
        (Api::Anthropic, "top_p"),
    ] {
        let script = Script {
            refuse_sampling: true,
            ..Script::default()
        };
        let fake = Fake::landmarks(api, script).await;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("batch.jsonl");
        let args = [&BATCH[..], &["--temperature", "0", "--top-p", "0.9"]].concat();
        let o = run(api, &fake, &arena(), &out, &args).await;
        assert_eq!(o.status.code(), Some(0), "{api:?}: {}", stderr(&o));
        let rows = json_lines(&out);
        assert_eq!(rows.len(), 15, "{api:?}");
        for row in &rows {
            assert_eq!(row["outcome"], "PASS", "{api:?}: {row}");
            assert_eq!(
                row["sampling"]["refused"],
                json!([refused]),
                "{api:?}: {row}"
            );
        }
        // Round 1: every first turn refused; each asked again once (round
        // 2), without the field, and never again after.
        let ledger = fake.ledger();
        let (first_batch, first_count) = ledger.batches[0].clone();
        assert_eq!(first_count, 15, "{api:?}: {first_batch}");
        assert_eq!(ledger.batches[1].1, 15, "{api:?}: the 15 asked again");
        assert!(ledger.batches[2..].iter().all(|(_, n)| *n <= 15));
        assert!(
            stderr(&o).contains("the model refuses this sampling setting"),
            "{api:?}"
        );
    }
}

/// An arena of `n` single-turn items: "Return the number K." answered as
/// `{"n": K}`, checked to equal K.
fn numbers_arena(dir: &Path, n: usize) {
    std::fs::write(
        dir.join("arena.toml"),
        r#"name = "numbers"
system = "Answer with the number."
schema = { type = "object", required = ["n"], additionalProperties = false, properties = { n = { type = "integer" } } }
"#,
    )
    .unwrap();
    let mut dataset = String::new();
    for k in 0..n {
        let item = json!({
            "id": format!("n{k}"), "input": format!("Return the number {k}."),
            "checks": [{"type": "json_path_equals", "path": "n", "value": k}]
        });
        dataset.push_str(&item.to_string());
        dataset.push('\n');
    }
    std::fs::write(dir.join("dataset.jsonl"), dataset).unwrap();
}

/// Answers "Return the number K." with K (K + 1 for every seventh K: a FAIL).
fn numbers_player() -> Player {
    std::sync::Arc::new(|body: &Value| {
        let text = body["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "user"))
            .map(|m| stand_in::text_of(&m["content"]))
            .ok_or("no user message")?;
        let k: u64 = text
            .trim_start_matches("Return the number ")
            .trim_end_matches('.')
            .parse()
            .map_err(|_| format!("not a number request: {text}"))?;
        let n = if k.is_multiple_of(7) { k + 1 } else { k };
        Ok(Api::Chat.answer(&json!({ "n": n }).to_string()))
    })
}

#[tokio::test]
async fn ten_thousand_single_turn_items_go_in_one_batch_and_lose_no_row() {
    const N: usize = 10_000;
    let fake = Fake::start(Api::Chat, numbers_player(), Script::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let arena_dir = dir.path().join("numbers");
    std::fs::create_dir(&arena_dir).unwrap();
    numbers_arena(&arena_dir, N);
    let online = run(
        Api::Chat,
        &fake,
        &arena_dir,
        &dir.path().join("online.jsonl"),
        &["--concurrency", "64"],
    )
    .await;
    assert_eq!(online.status.code(), Some(1), "{}", stderr(&online));
    let out = dir.path().join("batch.jsonl");
    let batch = run(Api::Chat, &fake, &arena_dir, &out, &BATCH).await;
    assert_eq!(batch.status.code(), Some(1), "{}", stderr(&batch));
    let ledger = fake.ledger();
    assert_eq!(ledger.batches.len(), 1, "one round, one batch");
    assert_eq!(ledger.submitted.len(), N);
    assert_eq!(json_lines(&out).len(), N, "no row lost");
    let report = comparable(&stdout(&batch));
    assert_eq!(report["summary"]["total"], N);
    assert_eq!(report["summary"]["fail"], N.div_ceil(7));
    assert_eq!(report, comparable(&stdout(&online)));
}

#[tokio::test]
async fn batch_mode_refuses_what_it_cannot_do() {
    let fake = Fake::landmarks(Api::Chat, Script::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    for (args, says) in [
        (
            vec!["--batch", "--cache", "c"],
            "--batch does not record, replay or cache",
        ),
        (
            vec!["--batch", "--max-cost-usd", "1"],
            "--max-cost-usd could stop none",
        ),
        (
            vec!["--batch", "--batch-poll-secs=-1"],
            "is not a number of seconds",
        ),
    ] {
        let o = run(Api::Chat, &fake, &arena(), &out, &args).await;
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = stand_in::tribunal(
        &[
            "run",
            arena().to_str().unwrap(),
            "--batch",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &[],
    )
    .await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--batch needs a live --backend"),
        "{}",
        stderr(&o)
    );
    assert!(fake.ledger().submitted.is_empty());
}

#[tokio::test]
async fn a_key_echoed_inside_a_batch_reaches_no_file() {
    for api in ALL {
        // A hostile server: every answer and every refusal quotes the key.
        let player: Player = std::sync::Arc::new(move |body: &Value| {
            if body.to_string().contains("Eiffel Tower") {
                return Err(format!("no, {FAKE_KEY}"));
            }
            Ok(api.answer(&json!({ "name": FAKE_KEY }).to_string()))
        });
        let fake = Fake::start(api, player, Script::default()).await;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("batch.jsonl");
        let o = run(api, &fake, &arena(), &out, &BATCH).await;
        assert_eq!(o.status.code(), Some(1), "{api:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains(FAKE_KEY) && !stdout(&o).contains(FAKE_KEY));
        let journal = std::fs::read_to_string(dir.path().join("batch.jsonl.batches")).unwrap();
        assert!(journal.contains("[redacted]"), "{api:?}: the echo was read");
        for file in ["batch.jsonl", "batch.jsonl.batches"] {
            let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
            assert!(!text.contains(FAKE_KEY), "{api:?}: {file} holds the key");
        }
    }
}
