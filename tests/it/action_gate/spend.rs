//! What the gate spends and when it runs at all: `max-cost-usd` caps the
//! whole job (each process is given what is left of it, from what the
//! earlier processes' results files record); the rerun cache makes an
//! unchanged model, prompt and arena cost nothing on either side, and the
//! comment says what was spent; a pull request that changes nothing under
//! `paths` skips the live run and says so in its comment.

use super::*;
use tribunal_testkit::stand_in::{Api, MODEL, live_env, model_server};

/// A live pull request's job against the stand-in model at `model`, in
/// `clone`, with `extra`; the stand-in's model is priced (by
/// `--pricing` in run-args, which the gate also prices its spending by).
fn live_job(server: &MockServer, model: &MockServer, clone: &Path, extra: &[(&str, &str)]) -> Job {
    let pricing = clone.parent().unwrap().join("pricing.toml");
    std::fs::write(
        &pricing,
        format!("[models.\"{MODEL}\"]\ninput = 1000.0\noutput = 1000.0\n"),
    )
    .unwrap();
    let run_args = format!("--pricing {}", pricing.display());
    let mut job = Job::new(
        server,
        "arenas/structured_output",
        &[
            ("TG_BACKEND", "openai-chat"),
            ("TG_MODEL", MODEL),
            ("TG_RUN_ARGS", run_args.as_str()),
        ],
    )
    .in_repo(clone);
    for (k, v) in live_env(Api::Chat, model) {
        job.set(k, &v);
    }
    for (k, v) in extra {
        job.set(k, v);
    }
    job
}

#[tokio::test]
async fn max_cost_usd_caps_the_whole_job_not_each_process() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let (model, _) = model_server(Api::Chat).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let mut job = live_job(&server, &model, &clone, &[("TG_MAX_COST_USD", "0.0000001")]);
    // The head's process spends the cap (it stops starting runs past it)...
    job.stages_ok(&["setup", "run"]).await;
    // ... so the baseline's has nothing left, and the gate fails closed.
    let (code, log) = job.stage("run-baseline").await;
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("max-cost-usd 0.0000001 is spent ($"), "{log}");
    assert!(log.contains("raise the input max-cost-usd"), "{log}");
    let (code, log) = job.stage("comment").await;
    assert_eq!(code, Some(0), "{log}");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("The job spent its max-cost-usd ($0.0000001)"),
        "{body}"
    );
    assert!(body.contains("failed in `run-baseline`"), "{body}");
}

#[tokio::test]
async fn an_unchanged_model_prompt_and_arena_cost_nothing_the_second_time() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let (model, seen) = model_server(Api::Chat).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    // Both jobs find the rerun cache in one place (actions/cache restores
    // it there from the newest of this name, backend and model).
    let temp = scratch.path().join("runner-temp");
    let temp = temp.to_str().unwrap();
    let mut first = live_job(&server, &model, &clone, &[("TG_RUNNER_TEMP", temp)]);
    let (code, log) = first.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    let asked = seen.lock().unwrap().len();
    assert!(asked > 0);
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    let spent = body
        .lines()
        .find(|l| l.contains("Spent: $"))
        .unwrap_or_else(|| panic!("{body}"))
        .to_string();
    assert!(
        !spent.contains("Spent: $0.000000 "),
        "the first run paid: {spent}"
    );

    let mut second = live_job(&server, &model, &clone, &[("TG_RUNNER_TEMP", temp)]);
    let (code, log) = second.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(
        seen.lock().unwrap().len(),
        asked,
        "no request reached the model"
    );
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("Spent: $0.000000 (both sides, every arena and shard; runs answered from the rerun cache cost nothing)."),
        "{body}"
    );
}

#[tokio::test]
async fn a_pull_request_outside_paths_skips_the_run_and_says_so() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, main) = repo(scratch.path(), &["arenas/structured_output"]);
    std::fs::write(clone.join("README.md"), "widgets, better\n").unwrap();
    git(&clone, &["commit", "-q", "-am", "docs only"]);
    let paths = [
        ("TG_PATHS", "arenas/ src/**/*.rs"),
        ("TG_BASE_SHA", main.as_str()),
    ];
    let mut job = Job::new(&server, "arenas/structured_output", &paths).in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(job.output("skipped").as_deref(), Some("true"));
    assert!(!job.work("head").exists(), "nothing ran");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("⏭️ tribunal: skipped, no change under `paths`"),
        "{body}"
    );
    assert!(body.contains("the arenas were **not run**"), "{body}");
    assert!(body.contains("- `README.md`"), "{body}");

    // A change under paths runs the gate (and here fails it).
    copy_arena(&clone.join("arenas/structured_output"), true);
    git(&clone, &["commit", "-q", "-am", "break an item"]);
    let mut job = Job::new(&server, "arenas/structured_output", &paths).in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(1), "{log}");
    assert!(
        log.contains("arenas/structured_output/dataset.jsonl is under paths"),
        "{log}"
    );
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(body.contains("regressed"), "{body}");
}
