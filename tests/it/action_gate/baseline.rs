//! The stored baseline a pull request gates against, and the arenas it
//! lacks: `find-baseline` takes only a `push`, `schedule` or
//! `workflow_dispatch` run of this repository's own code (a fork's pull
//! request from its `main` runs on `head_branch: main` too, and its
//! `pull_request` run can upload an artifact of any name: GitHub's
//! workflow run object names the repository the code came from as
//! `head_repository`, and the artifacts list gives its id as
//! `workflow_run.head_repository_id` — docs.github.com/en/rest/actions/artifacts,
//! /en/rest/actions/workflow-runs); it reads every page; it tries again
//! after GitHub's 5xx and secondary rate limits; an arena the stored
//! baseline lacks is run from the baseline branch here, and one not on the
//! baseline branch at all is gated on its own pass rate. The gate's comment
//! is found only among the token's own account's comments.

use super::*;

/// `tribunal github find-baseline` for `tribunal-baseline` of `branch`.
async fn find(server: &MockServer, branch: &str) -> (String, String) {
    let args = [
        "find-baseline",
        "--artifact",
        "tribunal-baseline",
        "--branch",
        branch,
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let out = github_cli(&server.uri(), &args).await;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (String::from_utf8_lossy(&out.stdout).to_string(), stderr)
}

#[tokio::test]
async fn find_baseline_picks_the_newest_unexpired_artifact_of_the_branch() {
    let comments = Comments::default();
    let mut expired = Upload::push(4, 43, "2026-12-03T11:00:00Z");
    expired.artifact = 4;
    let mut feature = Upload::push(3, 42, "2026-12-03T10:00:00Z");
    feature.branch = "feature";
    let server = github_with(
        &comments,
        &[
            Upload::push(1, 40, "2026-12-01T10:00:00Z"),
            Upload::push(2, 41, "2026-12-02T10:00:00Z"),
            feature,
        ],
        0,
    )
    .await;
    let (stdout, _) = find(&server, "main").await;
    assert_eq!(
        stdout,
        "found=true\nartifact-id=2\nrun-id=41\nhead-sha=sha41\n"
    );
    let (none, _) = find(&server, "release").await;
    assert_eq!(none, "found=false\n");
}

#[tokio::test]
async fn find_baseline_refuses_a_forks_artifact_and_a_pull_requests_run() {
    let comments = Comments::default();
    // Newest first: a fork's pull request from its own `main` (an all-FAIL
    // baseline would make every change an improvement), then a pull
    // request of this repository from a branch called `main` into
    // `release/x`, then a push to main: only the push is a baseline.
    let mut fork = Upload::push(7, 77, "2026-12-04T10:00:00Z");
    fork.event = "pull_request";
    fork.head_repository = FORK_ID;
    let mut own_pr = Upload::push(6, 66, "2026-12-03T10:00:00Z");
    own_pr.event = "pull_request";
    let mut dispatch = Upload::push(5, 55, "2026-12-02T10:00:00Z");
    dispatch.event = "workflow_dispatch";
    let server = github_with(
        &comments,
        &[
            Upload::push(4, 44, "2026-12-01T10:00:00Z"),
            dispatch,
            own_pr,
            fork,
        ],
        0,
    )
    .await;
    let (stdout, stderr) = find(&server, "main").await;
    assert_eq!(
        stdout, "found=true\nartifact-id=5\nrun-id=55\nhead-sha=sha55\n",
        "{stderr}"
    );
    assert!(
        stderr.contains("artifact 7 of run 77: its code came from another repository (head repository 2002, not 1001)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("artifact 6 of run 66: its event is \"pull_request\""),
        "{stderr}"
    );
    // The fork's run was refused from the artifact list alone.
    let wire = wire_log(&server).await;
    assert!(!wire.contains("/actions/runs/77"), "{wire}");
}

#[tokio::test]
async fn find_baseline_reads_past_the_first_page() {
    let comments = Comments::default();
    // 150 newer artifacts of another branch fill page 1 and part of page 2.
    let server = github_with(
        &comments,
        &[Upload::push(9, 99, "2026-12-01T10:00:00Z")],
        150,
    )
    .await;
    let (stdout, stderr) = find(&server, "main").await;
    assert_eq!(
        stdout, "found=true\nartifact-id=9\nrun-id=99\nhead-sha=sha99\n",
        "{stderr}"
    );
}

/// Answers `failures` in order, then passes to the mocks mounted after it.
async fn failing_first(server: &MockServer, route: &str, failures: Vec<ResponseTemplate>) {
    for failure in failures {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(failure)
            .up_to_n_times(1)
            .with_priority(1)
            .mount(server)
            .await;
    }
}

#[tokio::test]
async fn github_calls_are_tried_again_after_a_5xx_and_a_secondary_rate_limit() {
    let comments = Comments::default();
    let server = github_with(&comments, &[Upload::push(2, 41, "2026-12-02T10:00:00Z")], 0).await;
    failing_first(
        &server,
        &format!("/repos/{REPO}/actions/artifacts"),
        vec![
            ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>"),
            ResponseTemplate::new(403)
                .insert_header("retry-after", "1")
                .set_body_json(json!({"message": "You have exceeded a secondary rate limit."})),
        ],
    )
    .await;
    let (stdout, stderr) = find(&server, "main").await;
    assert_eq!(
        stdout, "found=true\nartifact-id=2\nrun-id=41\nhead-sha=sha41\n",
        "{stderr}"
    );
    assert!(
        stderr.contains("HTTP 502; trying again in 1s (attempt 2 of 4)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("HTTP 403; trying again in 1s (attempt 3 of 4)"),
        "{stderr}"
    );

    // A 403 that is not a rate limit is not tried again.
    let refused = tribunal_testkit::wire::own_server().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(403).set_body_json(json!({"message": "Must have admin rights"})),
        )
        .mount(&refused)
        .await;
    let args = [
        "find-baseline",
        "--artifact",
        "tribunal-baseline",
        "--branch",
        "main",
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let out = github_cli(&refused.uri(), &args).await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(refused.received_requests().await.unwrap().len(), 1);
}

/// GitHub makes the comment but its answer is lost (a 502 from its
/// front): the gate reads the comments before posting again, so the
/// verdict is posted once.
#[tokio::test]
async fn a_comment_made_behind_a_502_is_not_posted_twice() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let made_then_lost = MadeThenLost(comments.clone());
    Mock::given(method("POST"))
        .and(path(format!("/repos/{REPO}/issues/{PR}/comments")))
        .respond_with(made_then_lost)
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    let out = comment_cli(&server.uri(), "the verdict").await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("HTTP 502; trying again"), "{stderr}");
    let all = comments.all();
    assert_eq!(all.len(), 1, "posted once: {all:?}");
    assert!(all[0]["body"].as_str().unwrap().ends_with("the verdict"));
}

/// Makes the comment as GitHub would, then answers 502 as if its front
/// had lost the answer.
struct MadeThenLost(Comments);
impl wiremock::Respond for MadeThenLost {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        self.0.seed(BOT, body["body"].as_str().unwrap());
        ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>")
    }
}

/// Only the gate's own comment is edited: one by the token's account whose
/// first line is the marker. Anyone can quote the marker in a comment of
/// theirs; and (issue 59, row 10) `github-actions[bot]` writes for every
/// workflow of the repository, so another gate's comment can carry this
/// marker below its first line (a quoted cell, a pasted comment).
#[tokio::test]
async fn a_comment_that_is_not_the_gates_own_is_never_edited() {
    let comments = Comments::default();
    let mallory = "<!-- tribunal-gate: tribunal -->\n### ✅ tribunal: looks fine to me";
    comments.seed("mallory", mallory);
    let other = "### ✅ another gate\n\n| item | why |\n|---|---|\n| x | <!-- tribunal-gate: tribunal --> |";
    comments.seed(BOT, other);
    let server = github(&comments).await;
    for text in ["first", "second"] {
        let out = comment_cli(&server.uri(), text).await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let all = comments.all();
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(all[0]["body"], mallory);
    assert_eq!(all[1]["body"], other, "the other gate's comment was edited");
    assert_eq!(all[2]["user"]["login"], BOT);
    let ours = all[2]["body"].as_str().unwrap();
    assert!(
        ours.starts_with("<!-- tribunal-gate: tribunal -->\n"),
        "{ours}"
    );
    assert!(ours.ends_with("second"), "{all:?}");
}

#[tokio::test]
async fn an_arena_the_stored_baseline_lacks_is_run_from_the_baseline_branch() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    // main has both arenas; the stored baseline predates the second one.
    let (clone, _) = repo(
        scratch.path(),
        &["arenas/structured_output", "arenas/second"],
    );
    // This change breaks an item of the second arena.
    copy_arena(&clone.join("arenas/second"), true);
    let stored = baseline(scratch.path());
    let mut job = Job::new(&server, "arenas/structured_output arenas/second", &[]).in_repo(&clone);
    let (code, log) = job.gate(Some(&stored)).await;
    // (gate() stored the baseline under the slug of TG_ARENAS' first word:
    // arenas-structured_output.)
    assert_eq!(code, Some(1), "the second arena regressed: {log}");
    assert!(
        log.contains("arenas/second has no stored baseline: running it as it is on main"),
        "{log}"
    );
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(body.contains("❌ tribunal: `second` regressed"), "{body}");
    assert!(body.contains("`eiffel-tower` #0: PASS → FAIL"), "{body}");
    assert!(
        body.contains("Baseline: the results stored by run 41"),
        "{body}"
    );
    assert!(
        body.contains("Baseline: run in this job from `main`"),
        "{body}"
    );
    assert!(!body.contains("not on `main` yet"), "{body}");
}

#[tokio::test]
async fn an_arena_not_on_the_baseline_branch_is_gated_on_its_own_pass_rate() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    copy_arena(&clone.join("arenas/new"), true);
    let mut job = Job::new(&server, "arenas/new", &[]).in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(1), "one of its items fails: {log}");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("❌ tribunal: `arenas/new` is new: it fails on its own"),
        "{body}"
    );
    assert!(
        body.contains("at least 1 (the input new-arena-min-pass-rate)"),
        "{body}"
    );

    // At the pass rate it reaches, the same arena passes (and says so).
    let mut lenient = Job::new(
        &server,
        "arenas/new",
        &[("TG_NEW_ARENA_MIN_PASS_RATE", "0.9")],
    )
    .in_repo(&clone);
    let (code, log) = lenient.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("✅ tribunal: `arenas/new` is new: it passes on its own"),
        "{body}"
    );
}

/// The hook of a stand-in tribunal whose `run` writing `pattern` (a glob
/// of its `--out`) stops before `eiffel-tower` — the item this change
/// breaks — and exits `exit` (1: it stopped starting item runs, as at
/// `--max-cost-usd`; 0: a run that says it finished).
fn stops_before_eiffel(pattern: &str, exit: i32) -> String {
    format!(
        "case \"$1:$out\" in run:{pattern}) jq -c 'select(.id != \"eiffel-tower\")' \"$out\" > \"$out.cut\" && mv \"$out.cut\" \"$out\"; code={exit} ;; esac"
    )
}

/// The hook of a stand-in tribunal whose `run` writing `pattern` met an
/// outage: every item run an ERROR from the provider (HTTP 429).
fn outage(pattern: &str) -> String {
    format!(
        "case \"$1:$out\" in run:{pattern}) jq -c '.outcome = \"ERROR\" | .error_code = \"backend_error\" | .backend_failure = {{\"kind\": \"http\", \"status\": 429}} | .checks = [] | .answer = null' \"$out\" > \"$out.x\" && mv \"$out.x\" \"$out\" ;; esac"
    )
}

/// Issue 59, row 1: a baseline run here that stopped early (3 of 10 items
/// in the issue; here every item but the one this change breaks) once let
/// the stage exit 0 and the comparison match only what it ran: the
/// regression was never compared and the gate passed. It now fails the
/// gate naming why, whether the run said so (exit 1) or not (exit 0, its
/// rows short of the baseline branch's arena).
#[tokio::test]
async fn a_baseline_run_here_that_stopped_early_fails_the_gate() {
    for (exit, says) in [
        (
            1,
            "the baseline of arenas/structured_output run here from main exited 1 (1: it stopped starting item runs",
        ),
        (
            0,
            "short: 1 item run(s) it was asked for are not in it (it stopped early",
        ),
    ] {
        let comments = Comments::default();
        let server = github(&comments).await;
        let scratch = tempfile::tempdir().unwrap();
        let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
        copy_arena(&clone.join("arenas/structured_output"), true);
        let stand_in = StandIn::new(scratch.path(), &stops_before_eiffel("*/base-run/*", exit));
        let mut job = Job::new(&server, "arenas/structured_output", &[]).in_repo(&clone);
        job.set("TRIBUNAL", stand_in.path());
        let (code, log, failed) = job.run_all(None).await;
        assert_eq!(
            failed.as_deref(),
            Some("run-baseline"),
            "exit {exit}: {log}"
        );
        assert_eq!(code, Some(2), "exit {exit}: {log}");
        assert!(log.contains(says), "exit {exit}: {log}");
        let body = comments.all()[0]["body"].as_str().unwrap().to_string();
        assert!(body.contains("the gate did not finish"), "{body}");
        assert!(body.contains("The job failed in `run-baseline`"), "{body}");
    }
}

/// Issue 59, rows 1 and 2: on the baseline branch, a run that stopped
/// early, or met an outage (every run a `backend_error`: 429s, 5xx), is
/// never stored: the run step fails (so action.yml's upload is skipped)
/// and the verdict fails too. Before, a push stopped at 4 of 10 was
/// uploaded, and an all-ERROR baseline let every pull request pass for up
/// to 90 days.
#[tokio::test]
async fn a_push_that_stopped_early_or_met_an_outage_stores_no_baseline() {
    for (why, hook, says) in [
        (
            "stopped early",
            stops_before_eiffel("*", 1),
            "the baseline run of arenas/structured_output exited 1",
        ),
        (
            "short, said finished",
            stops_before_eiffel("*", 0),
            "short: 1 item run(s) it was asked for are not in it",
        ),
        (
            "an outage",
            outage("*"),
            "backend_errors: 15 item run(s) ended in ERROR because the provider failed",
        ),
    ] {
        let comments = Comments::default();
        let server = github(&comments).await;
        let scratch = tempfile::tempdir().unwrap();
        let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
        let stand_in = StandIn::new(scratch.path(), &hook);
        let mut job = Job::new(
            &server,
            "arenas/structured_output",
            &[("TG_EVENT", "push"), ("TG_BRANCH", "main"), ("TG_PR", "")],
        )
        .in_repo(&clone);
        job.set("TRIBUNAL", stand_in.path());
        let (code, log) = job.stage("setup").await;
        assert_eq!(code, Some(0), "{log}");
        assert_eq!(job.output("kind").as_deref(), Some("baseline"));
        let (code, log) = job.stage("run").await;
        assert_eq!(code, Some(2), "{why}: the upload step must not run: {log}");
        assert!(log.contains(says), "{why}: {log}");
        assert!(
            log.contains("is never stored") || log.contains("nothing is stored"),
            "{why}: {log}"
        );
        let (code, log) = job.verdict().await;
        assert_eq!(code, Some(2), "{why}: {log}");
    }
}

/// The structured_output results in `stored` with every row an ERROR from
/// the provider: what an outage on a push to main stored before issue 59.
fn all_errors(stored: &Path) -> PathBuf {
    let out = stored.with_file_name("outage.jsonl");
    let rows: Vec<String> = crate::json_lines(stored)
        .into_iter()
        .map(|r| crate::cli_compare_inputs::as_outage(r).to_string())
        .collect();
    std::fs::write(&out, rows.join("\n") + "\n").unwrap();
    out
}

/// Issue 59, rows 1 and 2, on the stored side: a stored baseline from
/// before this change that is all ERRORs (an outage), or short of the
/// item the change breaks, once passed every pull request. It is now
/// refused, said, and the baseline is run here from the baseline branch:
/// the regression is found.
#[tokio::test]
async fn a_stored_baseline_that_is_short_or_an_outage_is_never_gated_against() {
    let scratch = tempfile::tempdir().unwrap();
    let full = baseline(scratch.path());
    let short = scratch.path().join("short.jsonl");
    let kept: Vec<String> = crate::json_lines(&full)
        .into_iter()
        .filter(|r| r["id"] != "eiffel-tower")
        .map(|r| r.to_string())
        .collect();
    std::fs::write(&short, kept.join("\n") + "\n").unwrap();
    for (why, stored, says) in [
        (
            "an outage",
            all_errors(&full),
            "backend_errors: 15 item run(s) ended in ERROR",
        ),
        (
            "short",
            short.clone(),
            "not_covering: 1 item run(s) of the new results are not in it",
        ),
    ] {
        let comments = Comments::default();
        let server = github(&comments).await;
        let dir = tempfile::tempdir().unwrap();
        let (clone, _) = repo(dir.path(), &["arenas/structured_output"]);
        copy_arena(&clone.join("arenas/structured_output"), true);
        let mut job = Job::new(&server, "arenas/structured_output", &[]).in_repo(&clone);
        let (code, log) = job.gate(Some(&stored)).await;
        assert_eq!(code, Some(1), "{why}: the regression is found: {log}");
        assert!(log.contains(says), "{why}: {log}");
        assert!(
            log.contains("the stored baseline was refused: running it as it is on main"),
            "{why}: {log}"
        );
        let body = comments.all()[0]["body"].as_str().unwrap().to_string();
        assert!(
            body.contains("`eiffel-tower` #0: PASS → FAIL"),
            "{why}: {body}"
        );
        assert!(
            body.contains("the stored results of run 41 were refused"),
            "{why}: {body}"
        );
    }
}

/// Issue 59, row 7: a fork's runs from a branch called `main` once took
/// the 30 run lookups, so thirty of them hid the stored baseline and every
/// pull request ran it again live. A fork's artifact is dropped from the
/// list before any lookup is counted.
#[tokio::test]
async fn forks_cannot_use_up_the_baseline_lookups() {
    let comments = Comments::default();
    let mut uploads: Vec<Upload> = (0..40)
        .map(|i| {
            let mut fork = Upload::push(100 + i, 700 + i, &format!("2026-12-05T10:{i:02}:00Z"));
            fork.event = "pull_request";
            fork.head_repository = FORK_ID;
            fork
        })
        .collect();
    uploads.push(Upload::push(9, 99, "2026-12-01T10:00:00Z"));
    let server = github_with(&comments, &uploads, 0).await;
    let (stdout, stderr) = find(&server, "main").await;
    assert_eq!(
        stdout, "found=true\nartifact-id=9\nrun-id=99\nhead-sha=sha99\n",
        "{stderr}"
    );
    assert!(
        stderr.contains("artifact 139 of run 739: its code came from another repository"),
        "{stderr}"
    );
    let wire = wire_log(&server).await;
    assert!(
        !wire.contains("/actions/runs/7"),
        "a fork's run was looked up: {wire}"
    );
}

/// Issue 59, row 10: the new-arena comment once pasted `tribunal merge`'s
/// Markdown, which escaped only `|` and line breaks; its cells carry item
/// ids (the pull request's) and check details (the model's answer). Every
/// such text is now a code span it cannot close: no mention, link, HTML or
/// another gate's marker renders.
#[tokio::test]
async fn pull_request_and_model_text_in_the_comment_cannot_format_link_or_mention() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    let dir = copy_arena(&clone.join("arenas/new"), true);
    let hostile = "@octocat <img src=x onerror=alert(1)> [x](https://evil.invalid) ``` <!-- tribunal-gate: other -->";
    let quoted = serde_json::to_string(hostile).unwrap();
    let dataset = std::fs::read_to_string(dir.join("dataset.jsonl")).unwrap();
    let changed = dataset
        .replacen("\"id\": \"eiffel-tower\"", &format!("\"id\": {quoted}"), 1)
        .replacen(
            "{\"name\": \"Eiffel Tower\", \"year\"",
            &format!("{{\"name\": {quoted}, \"year\""),
            1,
        );
    assert_eq!(changed.matches("@octocat").count(), 2, "{changed}");
    std::fs::write(dir.join("dataset.jsonl"), changed).unwrap();
    let mut job = Job::new(&server, "arenas/new", &[]).in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(1), "{log}");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(body.contains("is new: it fails on its own"), "{body}");
    assert!(body.contains("@octocat"), "the text is shown: {body}");
    let bare = outside_code_spans(&body);
    for text in ["@octocat", "<img", "](https://evil", "tribunal-gate: other"] {
        assert!(!bare.contains(text), "{text} outside a code span: {body}");
    }
}

/// The baseline branch run here comes from the checkout's own remote ref
/// when it has one: a private repository checked out with
/// `persist-credentials: false` (and `fetch-depth: 0`, as the template
/// does) cannot be fetched again. Without that ref it is fetched.
#[tokio::test]
async fn the_baseline_branch_comes_from_the_checkout_or_is_fetched() {
    for (why, local_ref) in [("no way to fetch", true), ("a shallow checkout", false)] {
        let comments = Comments::default();
        let server = github(&comments).await;
        let scratch = tempfile::tempdir().unwrap();
        let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
        copy_arena(&clone.join("arenas/structured_output"), true);
        if local_ref {
            // The token is gone: origin cannot be read.
            git(
                &clone,
                &["remote", "set-url", "origin", "file:///nonexistent/origin"],
            );
        } else {
            git(&clone, &["update-ref", "-d", "refs/remotes/origin/main"]);
        }
        let mut job = Job::new(&server, "arenas/structured_output", &[]).in_repo(&clone);
        let (code, log) = job.gate(None).await;
        assert_eq!(code, Some(1), "{why}: the regression is found: {log}");
        assert!(
            log.contains(
                "arenas/structured_output has no stored baseline: running it as it is on main"
            ),
            "{why}: {log}"
        );
    }
}
