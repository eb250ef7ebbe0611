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

/// Issue 59, row 1: the cap keeps a share for the baseline. Without a
/// stored baseline the head's process once got the whole of what was left,
/// and the baseline run here got nothing; now each arena run still to come
/// in the job (the baseline's included) gets its part of what is left.
#[tokio::test]
async fn the_head_leaves_the_baseline_its_share_of_the_cap() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let (model, _) = model_server(Api::Chat).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let stand_in = StandIn::new(scratch.path(), "");
    let mut job = live_job(&server, &model, &clone, &[("TG_MAX_COST_USD", "1")]);
    job.set("TRIBUNAL", stand_in.path());
    job.stages_ok(&["setup", "run"]).await;
    let runs: Vec<String> = stand_in
        .calls()
        .into_iter()
        .filter(|c| c.args.starts_with("run "))
        .map(|c| c.args)
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(
        runs[0].contains("--max-cost-usd 0.5000000000"),
        "half of the cap, the other half the baseline's: {}",
        runs[0]
    );

    // With the stored baseline there, the head is the last run: all of it.
    let mut job = live_job(&server, &model, &clone, &[("TG_MAX_COST_USD", "1")]);
    job.set("TRIBUNAL", stand_in.path());
    job.stages_ok(&["setup"]).await;
    std::fs::create_dir_all(job.work("base")).unwrap();
    std::fs::write(job.work("base/arenas-structured_output.jsonl"), "").unwrap();
    job.stages_ok(&["run"]).await;
    let last = stand_in
        .calls()
        .into_iter()
        .rev()
        .find(|c| c.args.starts_with("run "))
        .unwrap();
    assert!(
        last.args.contains("--max-cost-usd 1.0000000000"),
        "{}",
        last.args
    );
}

/// A folder standing in for the runner's PATH: every program of /usr/bin
/// and /bin but `without`.
fn path_without(dir: &Path, without: &str) -> String {
    let farm = dir.join("path");
    std::fs::create_dir_all(&farm).unwrap();
    for bin in ["/usr/bin", "/bin"] {
        let Ok(entries) = std::fs::read_dir(bin) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let link = farm.join(&name);
            if name != without && !link.exists() {
                std::os::unix::fs::symlink(entry.path(), link).unwrap();
            }
        }
    }
    farm.display().to_string()
}

/// Issue 59, row 8: without jq (or with one that fails) the job's
/// spending once read as 0 — the second process got the whole cap and the
/// comment said $0. jq is checked in setup, and a failed read of what was
/// spent stops the gate before any process runs on a wrong cap.
#[tokio::test]
async fn a_missing_or_failing_jq_never_reads_as_nothing_spent() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let (model, _) = model_server(Api::Chat).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);

    let mut job = live_job(&server, &model, &clone, &[("TG_MAX_COST_USD", "1")]);
    job.set("PATH", &path_without(scratch.path(), "jq"));
    let (code, log) = job.stage("setup").await;
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("jq not on this runner"), "{log}");
    assert_eq!(job.output("kind"), None);

    // A jq that fails: the head runs on its share (nothing was spent
    // before it); the baseline's cap cannot be read, so it never runs.
    let shims = tempfile::tempdir().unwrap();
    let jq = shims.path().join("jq");
    std::fs::write(&jq, "#!/bin/sh\necho 'jq: error' >&2\nexit 5\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&jq, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let stand_in = StandIn::new(scratch.path(), "");
    let mut job = live_job(&server, &model, &clone, &[("TG_MAX_COST_USD", "1")]);
    job.set("TRIBUNAL", stand_in.path());
    job.set(
        "PATH",
        &format!(
            "{}:{}",
            shims.path().display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    job.stages_ok(&["setup", "run"]).await;
    let (code, log) = job.stage("run-baseline").await;
    assert_eq!(code, Some(2), "{log}");
    assert!(
        log.contains("jq could not read the cost of arenas-structured_output.jsonl"),
        "{log}"
    );
    let runs = stand_in
        .calls()
        .into_iter()
        .filter(|c| c.args.starts_with("run "))
        .count();
    assert_eq!(
        runs, 1,
        "the baseline never ran on a cap counted from nothing"
    );
}

/// Issue 59, row 9: `git diff --name-only` names a renamed file by its new
/// name only, so moving an item out of `paths` once skipped the gate
/// (exit 0). Both names count.
#[tokio::test]
async fn moving_a_file_out_of_paths_runs_the_gate() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    std::fs::create_dir_all(clone.join("arenas/retired")).unwrap();
    std::fs::write(
        clone.join("arenas/retired/dataset.jsonl"),
        "an item the change moves out of the arenas\n",
    )
    .unwrap();
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", "base"]);
    let base = git(&clone, &["rev-parse", "HEAD"]);
    std::fs::create_dir_all(clone.join("attic")).unwrap();
    git(
        &clone,
        &["mv", "arenas/retired/dataset.jsonl", "attic/dataset.jsonl"],
    );
    git(&clone, &["commit", "-q", "-m", "move it out"]);
    let mut job = Job::new(
        &server,
        "arenas/structured_output",
        &[("TG_PATHS", "arenas/"), ("TG_BASE_SHA", base.as_str())],
    )
    .in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_ne!(job.output("skipped").as_deref(), Some("true"), "{log}");
    assert!(
        log.contains("arenas/retired/dataset.jsonl is under paths: running the gate"),
        "{log}"
    );
    assert!(job.work("head/arenas-structured_output.jsonl").exists());
}

/// Issue 59, row 10, for file names (the pull request's): in the comment
/// each is a code span it cannot close (a backtick in a name once ended
/// it), and the log never carries one raw (`##[` starts a workflow command
/// anywhere in a line); workflow commands are off while a stage runs.
#[tokio::test]
async fn file_names_reach_the_comment_in_code_spans_and_the_log_never_raw() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, main) = repo(scratch.path(), &["arenas/structured_output"]);
    let hostile = "docs/a`b @octocat [x](javascript:alert) ##[error]y.md";
    std::fs::create_dir_all(clone.join("docs")).unwrap();
    std::fs::write(clone.join(hostile), "hi\n").unwrap();
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", "a file outside paths"]);
    let paths = [("TG_PATHS", "arenas/"), ("TG_BASE_SHA", main.as_str())];
    let mut job = Job::new(&server, "arenas/structured_output", &paths).in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(job.output("skipped").as_deref(), Some("true"));
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains(&format!("- ``{hostile}``")),
        "a fence one longer than the name's backticks: {body}"
    );
    let bare = outside_code_spans(&body);
    for text in ["@octocat", "](javascript", "##[error]"] {
        assert!(!bare.contains(text), "{text} outside a code span: {body}");
    }

    // The same name under paths: the log names it, made safe.
    let named = "arenas/##[error]evil `x`.md";
    std::fs::write(clone.join(named), "hi\n").unwrap();
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", "a file under paths"]);
    let mut job = Job::new(&server, "arenas/structured_output", &paths).in_repo(&clone);
    let (code, log) = job.stage("setup").await;
    assert_eq!(code, Some(0), "{log}");
    let (code, log) = job.stage("run").await;
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("arenas/___error_evil__x_.md is under paths"),
        "{log}"
    );
    assert!(!log.contains("##["), "{log}");
    assert!(log.starts_with("::stop-commands::"), "{log}");
}

/// Issue 59, row 12: the model's key reaches `tribunal run` and nothing
/// else. Given as the api-key input, action.yml hands it (TG_API_KEY) only
/// to the run and run-baseline steps; set in the job's environment the old
/// way, every step holds it, but no process the gate starts other than
/// `run` does (not `report`, `compare`, `merge`, `github …`), and no
/// `run` gets the GitHub token.
#[tokio::test]
async fn the_model_key_reaches_only_tribunal_run() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let (model, seen) = model_server(Api::Chat).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let key = live_env(Api::Chat, &model)
        .into_iter()
        .find(|(k, _)| *k == "OPENAI_API_KEY")
        .map(|(_, v)| v)
        .unwrap();
    for input in [true, false] {
        let stand_in = StandIn::new(scratch.path(), "");
        let _ = std::fs::remove_file(scratch.path().join("tribunal-calls.log"));
        let mut job = live_job(&server, &model, &clone, &[]);
        job.set("TRIBUNAL", stand_in.path());
        if input {
            // As action.yml gives it: setup learns only that it is set.
            job.env.remove("OPENAI_API_KEY");
            job.set("TG_API_KEY_SET", "true");
        }
        let mut log = String::new();
        for stage in ["setup", "run", "run-baseline", "compare", "comment"] {
            let model_step = stage == "run" || stage == "run-baseline";
            if input && model_step {
                job.set("TG_API_KEY", &key);
            } else {
                job.env.remove("TG_API_KEY");
            }
            let (code, out) = job.stage(stage).await;
            log.push_str(&out);
            assert_eq!(code, Some(0), "{stage}: {log}");
        }
        assert!(!seen.lock().unwrap().is_empty(), "the model was asked");
        let calls = stand_in.calls();
        let mut runs = 0;
        for call in &calls {
            let run = call.args.starts_with("run ");
            runs += usize::from(run);
            assert_eq!(
                call.env.contains(&key),
                run,
                "input {input}: {}: the key {}",
                call.args,
                if run { "is missing" } else { "is here" }
            );
            if !call.args.starts_with("github ") {
                assert!(
                    !call.env.contains(GITHUB_TOKEN),
                    "{}: the GitHub token",
                    call.args
                );
            }
        }
        assert_eq!(runs, 2, "head and baseline: {calls:?}");
        assert!(calls.iter().any(|c| c.args.starts_with("compare ")));
        assert!(!log.contains(&key), "the key in the log");
    }
}
