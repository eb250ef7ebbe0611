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

#[tokio::test]
async fn the_marker_in_someone_elses_comment_is_never_edited() {
    let comments = Comments::default();
    // Someone quotes the gate's marker in a comment of theirs, above it.
    comments.seed(
        "mallory",
        "<!-- tribunal-gate: tribunal -->\n### ✅ tribunal: looks fine to me",
    );
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
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["user"]["login"], "mallory");
    assert!(
        all[0]["body"]
            .as_str()
            .unwrap()
            .contains("looks fine to me")
    );
    assert_eq!(all[1]["user"]["login"], BOT);
    assert!(
        all[1]["body"].as_str().unwrap().ends_with("second"),
        "{all:?}"
    );
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
