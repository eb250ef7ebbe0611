//! Every mode of README's mode table, what each gates on, and the rule that
//! a run the gate cannot gate fails naming the input that would make it
//! gate. The events are GitHub's (docs.github.com/en/actions/reference/
//! events-that-trigger-workflows): `pull_request` (a fork's is told by
//! `pull_request.head.repo.full_name`), `merge_group` (its base branch is
//! `merge_group.base_ref`, a full ref), `push`, `schedule` (always on the
//! default branch), `workflow_dispatch`, and any other.

use super::*;

/// `setup` of a job with `extra` over a pull request's variables: exit
/// code, log, and the job.
async fn setup(extra: &[(&str, &str)]) -> (Option<i32>, String, Job) {
    let comments = Comments::default();
    let server = github(&comments).await;
    let mut job = Job::new(&server, "arenas/structured_output", extra);
    let (code, log) = job.stage("setup").await;
    (code, log, job)
}

/// A run of event `event` on branch `branch`, outside a pull request.
fn outside_pr(event: &'static str, branch: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("TG_EVENT", event),
        ("TG_BRANCH", branch),
        ("TG_PR", ""),
        ("TG_BASE_REF", ""),
    ]
}

/// A row of the mode table: its name, the run's variables, and the mode,
/// kind and baseline branch setup gives it.
type Row = (
    &'static str,
    Vec<(&'static str, &'static str)>,
    &'static str,
    &'static str,
    &'static str,
);

#[tokio::test]
async fn each_mode_of_the_table_is_told_from_its_event() {
    let live = [("TG_BACKEND", "openai-chat"), ("TG_MODEL", "gpt-4.1-mini")];
    let with_key = [live[0], live[1], ("OPENAI_API_KEY", MODEL_KEY)];
    let rows: Vec<Row> = vec![
        ("PR", with_key.to_vec(), "pr", "gate", "main"),
        ("PR, mock", vec![], "pr", "gate", "main"),
        (
            "fork PR",
            vec![live[0], live[1], ("TG_FORK", "true")],
            "fork-pr",
            "gate",
            "main",
        ),
        (
            "no-secret PR",
            live.to_vec(),
            "no-secret-pr",
            "gate",
            "main",
        ),
        (
            "PR into release/x",
            [with_key.to_vec(), vec![("TG_BASE_REF", "release/x")]].concat(),
            "pr",
            "gate",
            "release/x",
        ),
        (
            "baseline branch",
            outside_pr("push", "main"),
            "baseline",
            "baseline",
            "main",
        ),
        (
            "push elsewhere",
            outside_pr("push", "feature"),
            "push",
            "gate",
            "main",
        ),
        (
            "merge queue",
            [
                outside_pr("merge_group", "gh-readonly-queue/release/x/pr-17-abc"),
                vec![("TG_MERGE_BASE_REF", "refs/heads/release/x")],
            ]
            .concat(),
            "merge-queue",
            "gate",
            "release/x",
        ),
        (
            "dispatch",
            outside_pr("workflow_dispatch", "feature"),
            "dispatch",
            "gate",
            "main",
        ),
        (
            "dispatch on the baseline branch",
            outside_pr("workflow_dispatch", "main"),
            "baseline",
            "baseline",
            "main",
        ),
        (
            "schedule",
            outside_pr("schedule", "main"),
            "baseline",
            "baseline",
            "main",
        ),
        (
            "schedule, another baseline branch",
            [
                outside_pr("schedule", "main"),
                vec![("TG_BASELINE_BRANCH", "release")],
            ]
            .concat(),
            "schedule",
            "gate",
            "release",
        ),
        (
            "other event, mode: gate",
            [outside_pr("release", "v1.0.0"), vec![("TG_MODE", "gate")]].concat(),
            "gate",
            "gate",
            "main",
        ),
    ];
    for (row, extra, mode, kind, branch) in rows {
        let (code, log, job) = setup(&extra).await;
        assert_eq!(code, Some(0), "{row}: {log}");
        assert_eq!(job.output("mode").as_deref(), Some(mode), "{row}");
        assert_eq!(job.output("kind").as_deref(), Some(kind), "{row}");
        assert_eq!(job.env["TG_BASELINE_BRANCH"], branch, "{row}");
        // Only a pull request comments; only a run with secrets looks for
        // the stored (live) baseline.
        let pr = mode.ends_with("pr");
        assert_eq!(
            job.output("comment").as_deref() == Some("true"),
            pr,
            "{row}"
        );
        let secretless = mode == "fork-pr" || mode == "no-secret-pr";
        assert_eq!(
            job.output("stored").as_deref() == Some("true"),
            kind == "gate" && !secretless,
            "{row}"
        );
    }
}

#[tokio::test]
async fn a_run_the_gate_cannot_gate_fails_naming_the_input() {
    for (row, extra, says) in [
        (
            "other event",
            outside_pr("issue_comment", "main"),
            "event 'issue_comment' has no rule of its own, so the gate cannot tell what to compare; set the input mode: gate",
        ),
        (
            "mode: baseline on a pull request",
            vec![("TG_MODE", "baseline")],
            "mode: baseline on a pull_request run",
        ),
        (
            "mode: baseline off the baseline branch",
            [outside_pr("push", "feature"), vec![("TG_MODE", "baseline")]].concat(),
            "set baseline-branch: feature",
        ),
        (
            "an unknown mode",
            vec![("TG_MODE", "yolo")],
            "mode 'yolo' is not one of auto, gate, baseline",
        ),
    ] {
        let (code, log, job) = setup(&extra).await;
        assert_eq!(code, Some(2), "{row}: {log}");
        assert!(log.contains(says), "{row}: {log}");
        assert!(
            log.contains("::error title=tribunal gate::"),
            "{row}: {log}"
        );
        assert_eq!(job.output("kind"), None, "{row}");
    }
}

#[tokio::test]
async fn the_gating_modes_outside_a_pull_request_fail_on_a_regression() {
    let scratch = tempfile::tempdir().unwrap();
    let main = baseline(scratch.path());
    let broken = broken_arena(scratch.path());
    for extra in [
        [
            outside_pr("merge_group", "gh-readonly-queue/main/pr-17-abc"),
            vec![("TG_MERGE_BASE_REF", "refs/heads/main")],
        ]
        .concat(),
        outside_pr("workflow_dispatch", "feature"),
        [
            outside_pr("schedule", "main"),
            vec![("TG_BASELINE_BRANCH", "release")],
        ]
        .concat(),
        outside_pr("push", "feature"),
    ] {
        let comments = Comments::default();
        let server = github(&comments).await;
        let mut job = Job::new(&server, broken.to_str().unwrap(), &extra);
        // Its stored baseline is main's (any branch's: the stand-in's).
        let (code, log) = job.gate(Some(&main)).await;
        let mode = job.output("mode").unwrap();
        // action.yml runs compare and verdict on kind gate.
        assert_eq!(job.output("kind").as_deref(), Some("gate"), "{mode}");
        assert_eq!(code, Some(1), "{mode}: {log}");
        assert!(job.file("summary.md").contains("regressed"), "{mode}");
        assert!(
            comments.all().is_empty(),
            "{mode}: no pull request to comment on"
        );
    }
}

#[tokio::test]
async fn the_baseline_branch_stores_its_run_and_gates_nothing() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let mut job = Job::new(
        &server,
        arena().to_str().unwrap(),
        &outside_pr("push", "main"),
    );
    job.stages_ok(&["setup", "run"]).await;
    assert_eq!(job.output("kind").as_deref(), Some("baseline"));
    let stored = job
        .work("head")
        .join(format!("{}.jsonl", arena_slug(arena().to_str().unwrap())));
    assert_eq!(crate::json_lines(&stored).len(), 15);
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_pull_request_without_secrets_runs_as_a_forks_and_survives_a_read_only_token() {
    let comments = Comments::default();
    let server = github(&comments).await;
    // Dependabot's token is read-only: the comment is refused.
    Mock::given(method("POST"))
        .and(path(format!("/repos/{REPO}/issues/{PR}/comments")))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"message": "Resource not accessible by integration"})),
        )
        .with_priority(1)
        .mount(&server)
        .await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let mut job = Job::new(
        &server,
        "arenas/structured_output",
        &[("TG_BACKEND", "openai-chat"), ("TG_MODEL", "gpt-4.1-mini")],
    )
    .in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(job.output("mode").as_deref(), Some("no-secret-pr"));
    assert!(log.contains("could not comment"), "{log}");
    let summary = job.file("summary.md");
    assert!(
        summary.contains("Pull request without secrets (`OPENAI_API_KEY` is empty here, as for Dependabot's), so both sides ran the mock instead of openai-chat."),
        "{summary}"
    );
    for side in ["head", "base"] {
        let rows = crate::json_lines(&job.work(side).join("arenas-structured_output.jsonl"));
        assert!(rows.iter().all(|r| r["backend"] == "mock"), "{side}");
    }
    assert!(comments.all().is_empty());
}

#[tokio::test]
async fn two_uses_of_the_action_in_one_job_have_their_own_folders() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let mut job = Job::new(&server, "arenas/structured_output", &[]);
    job.stages_ok(&["setup"]).await;
    let first = job.env["TG_WORK"].clone();
    // The second use runs in the same job: same runner temp, same
    // GITHUB_ENV (holding the first use's TG_WORK), same name.
    job.stages_ok(&["setup"]).await;
    let second = job.env["TG_WORK"].clone();
    assert_ne!(first, second);
    assert!(Path::new(&first).is_dir() && Path::new(&second).is_dir());
}

#[tokio::test]
async fn a_failed_step_replaces_the_previous_verdict() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let main = baseline(scratch.path());
    let mut first = Job::new(&server, arena().to_str().unwrap(), &[]);
    let (code, log) = first.gate(Some(&main)).await;
    assert_eq!(code, Some(0), "{log}");
    assert!(comments.all()[0]["body"].as_str().unwrap().contains("✅"));

    // The next push breaks the arena's configuration: the run step fails.
    let bad = scratch.path().join("arenas/structured_output");
    copy_arena(&bad, false);
    std::fs::write(bad.join("arena.toml"), "this is not toml = = =\n").unwrap();
    let mut second = Job::new(&server, bad.to_str().unwrap(), &[]);
    second.stages_ok(&["setup"]).await;
    let (code, log) = second.stage("run").await;
    assert_eq!(code, Some(2), "{log}");
    // action.yml runs the comment step always().
    let (code, log) = second.stage("comment").await;
    assert_eq!(code, Some(0), "{log}");
    let all = comments.all();
    assert_eq!(all.len(), 1);
    let body = all[0]["body"].as_str().unwrap();
    assert!(
        body.contains("❌ tribunal: the gate did not finish"),
        "{body}"
    );
    assert!(body.contains("The job failed in `run`"), "{body}");
    assert!(!body.contains("✅"), "{body}");
}

/// Issue 59, row 6: fork code never runs with a model key. A
/// `pull_request_target` or `workflow_run` job holds this repository's
/// secrets and write token while it may run a fork's arena (an arena is
/// code: `[[mcp]] command=` starts a process, `bearer_env` sends the key to
/// the server its `url` names), so the gate refuses it with a live backend
/// whatever the mode (the refusal once suggested `mode: gate`, which
/// skipped the fork check), and runs it without a key on the mock or a
/// replay; `mode: gate` on a fork's pull request runs as the fork's too.
#[tokio::test]
async fn fork_code_never_runs_with_a_model_key() {
    let live = [
        ("TG_BACKEND", "openai-chat"),
        ("TG_MODEL", "gpt-4.1-mini"),
        ("OPENAI_API_KEY", MODEL_KEY),
    ];
    for (row, extra) in [
        (
            "pull_request_target",
            [
                outside_pr("pull_request_target", "main"),
                vec![("TG_PR", "17")],
                live.to_vec(),
            ]
            .concat(),
        ),
        (
            "pull_request_target, mode: gate",
            [
                outside_pr("pull_request_target", "main"),
                vec![("TG_PR", "17"), ("TG_MODE", "gate")],
                live.to_vec(),
            ]
            .concat(),
        ),
        (
            "workflow_run, mode: gate",
            [
                outside_pr("workflow_run", "main"),
                vec![("TG_MODE", "gate")],
                live.to_vec(),
            ]
            .concat(),
        ),
    ] {
        let (code, log, job) = setup(&extra).await;
        assert_eq!(code, Some(2), "{row}: {log}");
        assert!(
            log.contains("never runs it with a model key"),
            "{row}: {log}"
        );
        assert!(
            !log.contains("mode: gate"),
            "{row}: a refusal that suggests mode: gate: {log}"
        );
        assert_eq!(job.output("kind"), None, "{row}");
    }

    // On the mock (here: with the key in the job's environment all the
    // same), it gates, without a key, on a baseline run here.
    for (row, extra) in [
        (
            "pull_request_target, mock",
            [
                outside_pr("pull_request_target", "main"),
                vec![("TG_PR", "17"), ("OPENAI_API_KEY", MODEL_KEY)],
            ]
            .concat(),
        ),
        (
            "a fork's pull request, mode: gate",
            vec![
                ("TG_FORK", "true"),
                ("TG_MODE", "gate"),
                ("TG_BACKEND", "openai-chat"),
                ("TG_MODEL", "gpt-4.1-mini"),
                ("OPENAI_API_KEY", MODEL_KEY),
            ],
        ),
    ] {
        let (code, log, job) = setup(&extra).await;
        assert_eq!(code, Some(0), "{row}: {log}");
        assert_eq!(job.output("kind").as_deref(), Some("gate"), "{row}");
        assert_eq!(job.output("secretless").as_deref(), Some("true"), "{row}");
        assert_eq!(job.output("stored").as_deref(), Some("false"), "{row}");
    }

    // The whole pull_request_target job, through a stand-in tribunal that
    // records every call's environment: no process it starts holds the key.
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let stand_in = StandIn::new(scratch.path(), "");
    let mut job = Job::new(
        &server,
        "arenas/structured_output",
        &[
            outside_pr("pull_request_target", "main"),
            vec![("TG_PR", "17"), ("OPENAI_API_KEY", MODEL_KEY)],
        ]
        .concat(),
    )
    .in_repo(&clone);
    job.set("TRIBUNAL", stand_in.path());
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    let calls = stand_in.calls();
    assert!(
        calls.iter().any(|c| c.args.starts_with("run ")),
        "{calls:?}"
    );
    for call in &calls {
        assert!(
            !call.env.contains(MODEL_KEY),
            "{}: holds the key",
            call.args
        );
    }
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(body.contains("**Mock:**"), "{body}");
}

/// Issue 59, row 3: the rerun cache decides answers, so it decides
/// verdicts. A gate (a pull request's run of its own code) saves under a
/// key of its own kind, and the baseline restores only what baseline runs
/// saved: nothing a pull request wrote is read on the baseline branch.
#[tokio::test]
async fn a_pull_requests_rerun_cache_is_never_read_by_the_baseline() {
    let live = [
        ("TG_BACKEND", "openai-chat"),
        ("TG_MODEL", "gpt-4.1-mini"),
        ("OPENAI_API_KEY", MODEL_KEY),
    ];
    let (code, log, pr) = setup(&live).await;
    assert_eq!(code, Some(0), "{log}");
    let (code, log, main) = setup(&[outside_pr("push", "main"), live.to_vec()].concat()).await;
    assert_eq!(code, Some(0), "{log}");
    let prefix = "tribunal-cache-tribunal-openai-chat-gpt-4.1-mini";
    assert_eq!(
        pr.output("cache-key"),
        Some(format!("{prefix}-gate-abc123"))
    );
    assert_eq!(
        pr.output("cache-restore"),
        Some(format!("{prefix}-gate-\n{prefix}-baseline-"))
    );
    assert_eq!(
        main.output("cache-key"),
        Some(format!("{prefix}-baseline-abc123"))
    );
    assert_eq!(
        main.output("cache-restore"),
        Some(format!("{prefix}-baseline-")),
        "the baseline restores no key a pull request saves"
    );
}

/// Only a pull request runs without the key on the mock (a fork's, or one
/// whose job has none, as Dependabot's): a merge queue, a push or a
/// dispatch without the key keeps the live backend, and `tribunal run`
/// then fails for want of it — it never turns into a green check that
/// measured the mock.
#[tokio::test]
async fn outside_a_pull_request_a_missing_key_is_never_the_mock() {
    let live = [("TG_BACKEND", "openai-chat"), ("TG_MODEL", "gpt-4.1-mini")];
    for (row, extra) in [
        (
            "merge queue",
            [
                outside_pr("merge_group", "gh-readonly-queue/main/pr-17-abc"),
                vec![("TG_MERGE_BASE_REF", "refs/heads/main")],
            ]
            .concat(),
        ),
        (
            "dispatch, mode: gate",
            [
                outside_pr("workflow_dispatch", "feature"),
                vec![("TG_MODE", "gate")],
            ]
            .concat(),
        ),
        ("a pull request, mode: gate", vec![("TG_MODE", "gate")]),
    ] {
        let (code, log, job) = setup(&[extra, live.to_vec()].concat()).await;
        assert_eq!(code, Some(0), "{row}: {log}");
        let pr = row.starts_with("a pull request");
        assert_eq!(
            job.output("secretless").as_deref(),
            Some(if pr { "true" } else { "false" }),
            "{row}"
        );
    }
}
