//! The pull-request gate (`action/action.yml`) run stage by stage, as its
//! composite steps run them (each stage's `GITHUB_ENV` carried to the next),
//! against a stand-in for the GitHub REST API: the first push creates the
//! gate's comment and the second updates the same one; a fork's pull request
//! runs without the secrets and says so; a regression fails the job; no key
//! reaches GitHub, the log or the comment. The submodules hold the rest of
//! issue 48: every mode of the mode table (`modes`), the stored baseline and
//! the arenas it lacks (`baseline`), installing the right binary (`install`),
//! cost, cache and the paths filter (`spend`), and what the workflows and
//! action.yml must say for the rules the runner applies (`workflows`).

mod baseline;
mod install;
mod modes;
mod spend;
mod workflows;

use crate::tribunal_bin;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const REPO: &str = "acme/widgets";
/// The repository's id, as GitHub's runs and artifacts give it.
const REPO_ID: u64 = 1001;
/// A fork of it.
const FORK_ID: u64 = 2002;
const PR: &str = "17";
const GITHUB_TOKEN: &str = "ghs_standin_token_4f2a9c";
const MODEL_KEY: &str = "sk-standin-model-key-77b1";
/// Whose token the stand-in says `GITHUB_TOKEN` is (GraphQL's `viewer`);
/// the comments it writes are by `github-actions[bot]` (REST's login).
const BOT: &str = "github-actions[bot]";

/// The stand-in's issue comments: what GitHub would hold.
#[derive(Clone, Default)]
struct Comments(Arc<Mutex<Vec<Value>>>);

impl Comments {
    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }

    /// A comment by `login` holding `body`, as if written before the gate ran.
    fn seed(&self, login: &str, body: &str) {
        let mut comments = self.0.lock().unwrap();
        let id = 9000 + comments.len() as u64;
        comments.push(json!({"id": id, "body": body, "user": {"login": login}}));
    }
}

struct List(Comments);
impl Respond for List {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(self.0.all())
    }
}

struct Create(Comments);
impl Respond for Create {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let mut comments = self.0.0.lock().unwrap();
        let id = 9000 + comments.len() as u64;
        let comment = json!({
            "id": id,
            "body": body["body"],
            "user": {"login": BOT},
            "html_url": format!("https://github.invalid/{REPO}/pull/{PR}#issuecomment-{id}"),
        });
        comments.push(comment.clone());
        ResponseTemplate::new(201).set_body_json(comment)
    }
}

struct Update(Comments);
impl Respond for Update {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let id: u64 = request
            .url
            .path()
            .rsplit('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let mut comments = self.0.0.lock().unwrap();
        match comments.iter_mut().find(|c| c["id"] == id) {
            Some(c) => {
                c["body"] = body["body"].clone();
                ResponseTemplate::new(200).set_body_json(c.clone())
            }
            None => ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})),
        }
    }
}

/// The artifacts list, a page of 100 at a time (`page=N`), as GitHub
/// pages it.
struct Artifacts(Vec<Value>);
impl Respond for Artifacts {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let page: usize = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let items: Vec<Value> = self
            .0
            .iter()
            .skip((page - 1) * 100)
            .take(100)
            .cloned()
            .collect();
        ResponseTemplate::new(200)
            .set_body_json(json!({"total_count": self.0.len(), "artifacts": items}))
    }
}

/// One stored baseline artifact and the run that uploaded it.
#[derive(Clone)]
struct Upload {
    artifact: u64,
    run: u64,
    branch: &'static str,
    event: &'static str,
    head_repository: u64,
    created_at: String,
}

impl Upload {
    /// A `push` run of this repository on `main`.
    fn push(artifact: u64, run: u64, created_at: &str) -> Upload {
        Upload {
            artifact,
            run,
            branch: "main",
            event: "push",
            head_repository: REPO_ID,
            created_at: created_at.to_string(),
        }
    }

    fn artifact_json(&self) -> Value {
        json!({"id": self.artifact, "name": "tribunal-baseline", "expired": false,
               "created_at": self.created_at,
               "workflow_run": {"id": self.run, "repository_id": REPO_ID,
                                "head_repository_id": self.head_repository,
                                "head_branch": self.branch, "head_sha": format!("sha{}", self.run)}})
    }

    fn run_json(&self) -> Value {
        json!({"id": self.run, "event": self.event, "head_branch": self.branch,
               "head_repository": {"id": self.head_repository},
               "repository": {"id": REPO_ID}})
    }
}

/// The stand-in GitHub: the GraphQL `viewer`, the comments of pull request
/// 17, and `uploads` as stored artifacts (with `filler` artifacts of
/// another name listed first) and the runs behind them.
async fn github_with(comments: &Comments, uploads: &[Upload], filler: usize) -> MockServer {
    let server = tribunal_testkit::wire::own_server().await;
    Mock::given(method("POST"))
        .and(path("/graphql"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"data": {"viewer": {"login": BOT}}})),
        )
        .mount(&server)
        .await;
    let comments_path = format!("/repos/{REPO}/issues/{PR}/comments");
    Mock::given(method("GET"))
        .and(path(comments_path.as_str()))
        .respond_with(List(comments.clone()))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(comments_path.as_str()))
        .respond_with(Create(comments.clone()))
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path_regex(format!(
            "^/repos/{REPO}/issues/comments/[0-9]+$"
        )))
        .respond_with(Update(comments.clone()))
        .mount(&server)
        .await;
    let mut artifacts: Vec<Value> = (0..filler)
        .map(|i| {
            json!({"id": 50_000 + i, "name": "tribunal-baseline", "expired": false,
                   "created_at": "2026-12-03T12:00:00Z",
                   "workflow_run": {"id": 60_000 + i, "repository_id": REPO_ID,
                                    "head_repository_id": REPO_ID,
                                    "head_branch": "feature", "head_sha": "fff"}})
        })
        .collect();
    artifacts.extend(uploads.iter().map(Upload::artifact_json));
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(Artifacts(artifacts))
        .mount(&server)
        .await;
    for upload in uploads {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{REPO}/actions/runs/{}", upload.run)))
            .respond_with(ResponseTemplate::new(200).set_body_json(upload.run_json()))
            .mount(&server)
            .await;
    }
    server
}

/// [`github_with`] without stored baselines.
async fn github(comments: &Comments) -> MockServer {
    github_with(comments, &[], 0).await
}

/// One job of the gate: its folder, the variables GitHub gives its steps
/// and those the steps wrote to `GITHUB_ENV`.
struct Job {
    dir: tempfile::TempDir,
    api: String,
    cwd: Option<PathBuf>,
    env: HashMap<String, String>,
}

impl Job {
    /// A pull request's job (event `pull_request`, number 17, into `main`),
    /// with `extra` on top.
    fn new(server: &MockServer, arenas: &str, extra: &[(&str, &str)]) -> Job {
        let dir = tempfile::tempdir().unwrap();
        let mut env: HashMap<String, String> = [
            ("TG_ARENAS", arenas),
            ("TG_EVENT", "pull_request"),
            ("TG_PR", PR),
            ("TG_BASE_REF", "main"),
            ("TG_BRANCH", "17/merge"),
            ("TG_DEFAULT_BRANCH", "main"),
            ("TG_SHA", "abc123"),
            (
                "TG_DETAILS_URL",
                "https://github.invalid/acme/widgets/actions/runs/5",
            ),
            ("GITHUB_REPOSITORY", REPO),
            ("GITHUB_TOKEN", GITHUB_TOKEN),
        ]
        .iter()
        .chain(extra)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        env.insert(
            "TG_RUNNER_TEMP".into(),
            dir.path().join("temp").display().to_string(),
        );
        env.entry("TRIBUNAL".into())
            .or_insert_with(|| tribunal_bin().display().to_string());
        for (var, file) in [
            ("GITHUB_OUTPUT", "output"),
            ("GITHUB_STEP_SUMMARY", "summary.md"),
            ("GITHUB_ENV", "env"),
            ("GITHUB_PATH", "path"),
        ] {
            env.insert(var.into(), dir.path().join(file).display().to_string());
        }
        Job {
            api: server.uri(),
            dir,
            cwd: None,
            env,
        }
    }

    /// The job runs in `repo` (a clone whose `origin` has the baseline
    /// branch).
    fn in_repo(mut self, repo: &Path) -> Job {
        self.cwd = Some(repo.to_path_buf());
        self
    }

    fn set(&mut self, key: &str, value: &str) {
        self.env.insert(key.into(), value.into());
    }

    fn work(&self, rel: &str) -> PathBuf {
        Path::new(&self.env["TG_WORK"]).join(rel)
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }

    /// The step output `key` written so far (the last one wins), as the
    /// runner reads `GITHUB_OUTPUT`: `key=value` lines and `key<<DELIM`
    /// blocks.
    fn output(&self, key: &str) -> Option<String> {
        github_file(&self.file("output"))
            .into_iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v)
            .next_back()
    }

    /// Runs `gate.sh STAGE`; its exit code and its stdout + stderr. What it
    /// wrote to `GITHUB_ENV` is the job's environment from then on.
    async fn stage(&mut self, stage: &str) -> (Option<i32>, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/gate.sh");
        let mut command = tokio::process::Command::new("bash");
        command
            .arg(script)
            .arg(stage)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITHUB_API_URL", &self.api)
            .envs(self.env.iter());
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        let output = command.output().await.unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        self.env.extend(github_env(&self.file("env")));
        (output.status.code(), log)
    }

    /// Runs `stages` in order, each expected to exit 0; the whole log.
    async fn stages_ok(&mut self, stages: &[&str]) -> String {
        let mut log = String::new();
        for stage in stages {
            let (code, out) = self.stage(stage).await;
            log.push_str(&out);
            assert_eq!(code, Some(0), "{stage}: {log}");
        }
        log
    }

    /// A gate job's stages after setup, with `stored` as the baseline
    /// `actions/download-artifact` put in `base/` (the stored results of
    /// the arena in TG_ARENAS), run 41's: run, run-baseline, compare,
    /// comment, verdict, each but the verdict expected to exit 0. The
    /// verdict's exit code and the whole log.
    async fn gate(&mut self, stored: Option<&Path>) -> (Option<i32>, String) {
        let (code, log, failed) = self.run_all(stored).await;
        assert_eq!(failed, None, "{log}");
        (code, log)
    }

    /// The whole job as action.yml runs it: each step only while every
    /// earlier one passed, but the comment (`always()`) and the verdict
    /// (`!cancelled()`); `stored` is put in `base/` after the run step, as
    /// [`Job::gate`] does. The verdict's exit code, the whole log, and the
    /// first step that failed.
    async fn run_all(&mut self, stored: Option<&Path>) -> (Option<i32>, String, Option<String>) {
        let mut log = String::new();
        let mut failed = None;
        for stage in ["setup", "run", "run-baseline", "compare"] {
            if stage == "run-baseline"
                && let Some(stored) = stored
            {
                std::fs::create_dir_all(self.work("base")).unwrap();
                let first = self.env["TG_ARENAS"].split_whitespace().next().unwrap();
                let slug = arena_slug(first);
                std::fs::copy(stored, self.work("base").join(format!("{slug}.jsonl"))).unwrap();
                self.set("TG_BASELINE_RUN", "41");
            }
            let (code, out) = self.stage(stage).await;
            log.push_str(&out);
            if code != Some(0) {
                failed = Some(stage.to_string());
                break;
            }
        }
        let (code, out) = self.stage("comment").await;
        log.push_str(&out);
        if code != Some(0) && failed.is_none() {
            failed = Some("comment".to_string());
        }
        let (code, out) = self.verdict().await;
        log.push_str(&out);
        (code, log, failed)
    }

    /// The verdict stage, given setup's output `kind` as action.yml gives
    /// it (`TG_KIND_OUTPUT`).
    async fn verdict(&mut self) -> (Option<i32>, String) {
        let kind = self.output("kind").unwrap_or_default();
        self.set("TG_KIND_OUTPUT", &kind);
        self.stage("verdict").await
    }
}

/// A stand-in for the tribunal binary (issue 59's kit): a script that
/// records each call's arguments and environment, runs the real binary,
/// then `hook` (sh, with `$1` the subcommand, `$out` the call's `--out` and
/// `$code` its exit code, both of which it may change), and exits `$code`.
struct StandIn {
    script: PathBuf,
    log: PathBuf,
}

/// One call of the stand-in: its arguments (space-joined) and environment.
#[derive(Debug)]
struct Call {
    args: String,
    env: String,
}

impl StandIn {
    fn new(dir: &Path, hook: &str) -> StandIn {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("tribunal-stand-in");
        let log = dir.join("tribunal-calls.log");
        let body = format!(
            r#"#!/bin/sh
{{ echo "CALL $*"; env | sed 's/^/  ENV /'; }} >> '{log}'
out=""; prev=""
for a in "$@"; do [ "$prev" = "--out" ] && out="$a"; prev="$a"; done
'{real}' "$@"
code=$?
{hook}
exit $code
"#,
            log = log.display(),
            real = tribunal_bin().display(),
        );
        std::fs::write(&script, body).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        StandIn { script, log }
    }

    fn path(&self) -> &str {
        self.script.to_str().unwrap()
    }

    /// Every call so far, in order.
    fn calls(&self) -> Vec<Call> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut calls: Vec<Call> = Vec::new();
        for line in text.lines() {
            match (line.strip_prefix("CALL "), calls.last_mut()) {
                (Some(args), _) => calls.push(Call {
                    args: args.to_string(),
                    env: String::new(),
                }),
                (None, Some(call)) => {
                    call.env.push_str(line.trim_start_matches("  ENV "));
                    call.env.push('\n');
                }
                (None, None) => {}
            }
        }
        calls
    }
}

/// The variables a `GITHUB_ENV` file sets: `NAME<<DELIM` … `DELIM` blocks.
fn github_env(text: &str) -> Vec<(String, String)> {
    github_file(text)
}

/// What a `GITHUB_ENV` or `GITHUB_OUTPUT` file sets, in order, as the
/// runner reads it (actions/runner, src/Runner.Worker/FileCommandManager.cs:
/// whichever of `=` and `<<` comes first in a line decides): `NAME=value`
/// lines and `NAME<<DELIM` … `DELIM` blocks.
fn github_file(text: &str) -> Vec<(String, String)> {
    let mut vars = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let (equals, heredoc) = (line.find('='), line.find("<<"));
        let Some((name, delim)) = line
            .split_once("<<")
            .filter(|_| equals.is_none_or(|e| heredoc.is_some_and(|h| h < e)))
        else {
            if let Some((name, value)) = line.split_once('=') {
                vars.push((name.to_string(), value.to_string()));
            }
            continue;
        };
        let mut value = Vec::new();
        for l in lines.by_ref() {
            if l == delim {
                break;
            }
            value.push(l);
        }
        vars.push((name.to_string(), value.join("\n")));
    }
    vars
}

/// The results file name gate.sh gives one arena folder.
fn arena_slug(arena: &str) -> String {
    arena.trim_end_matches('/').replace('/', "-")
}

/// The structured_output arena's mock results: the stored baseline of `main`.
fn baseline(dir: &Path) -> PathBuf {
    let out = dir.join("main.jsonl");
    let o = std::process::Command::new(tribunal_bin())
        .arg("run")
        .arg(arena())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    out
}

/// Copies the structured_output arena to `dst`, named for its folder; with
/// `broken`, its scripted answer for the Eiffel Tower gives the wrong year:
/// one item fails.
fn copy_arena(dst: &Path, broken: bool) -> PathBuf {
    let src = arena();
    std::fs::create_dir_all(dst).unwrap();
    for name in ["corpus.json", "schema.json"] {
        std::fs::copy(src.join(name), dst.join(name)).unwrap();
    }
    let name = dst.file_name().unwrap().to_str().unwrap();
    let toml = std::fs::read_to_string(src.join("arena.toml")).unwrap();
    let renamed = toml.replacen(
        "name = \"structured_output\"",
        &format!("name = \"{name}\""),
        1,
    );
    assert!(name == "structured_output" || renamed != toml);
    std::fs::write(dst.join("arena.toml"), renamed).unwrap();
    let dataset = std::fs::read_to_string(src.join("dataset.jsonl")).unwrap();
    let written = if broken {
        let b = dataset.replacen(
            "\"year\": 1889, \"height_m\": 300, \"sources\"",
            "\"year\": 1901, \"height_m\": 300, \"sources\"",
            1,
        );
        assert_ne!(b, dataset, "the Eiffel Tower's mock answer moved");
        b
    } else {
        dataset
    };
    std::fs::write(dst.join("dataset.jsonl"), written).unwrap();
    dst.to_path_buf()
}

/// A copy of the structured_output arena that breaks one item.
fn broken_arena(dir: &Path) -> PathBuf {
    copy_arena(&dir.join("arenas/structured_output"), true)
}

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output")
}

/// `git ARGS` in `dir`, which must succeed; its stdout, trimmed. (Also
/// the repositories of `cli_review`.)
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=gate",
            "-c",
            "user.email=gate@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository whose `main` holds the structured_output arena at each of
/// `on_main` (paths under the repository), cloned: the clone is where the
/// job runs, its `origin` the repository. Returns the clone and `main`'s
/// commit.
fn repo(scratch: &Path, on_main: &[&str]) -> (PathBuf, String) {
    let origin = scratch.join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "-q", "-b", "main"]);
    std::fs::write(origin.join("README.md"), "widgets\n").unwrap();
    for dir in on_main {
        copy_arena(&origin.join(dir), false);
    }
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "main"]);
    let sha = git(&origin, &["rev-parse", "HEAD"]);
    let clone = scratch.join("clone");
    git(
        scratch,
        &[
            "clone",
            "-q",
            &format!("file://{}", origin.display()),
            "clone",
        ],
    );
    (clone, sha)
}

/// Every request the stand-in saw, as text: method, URL, headers but the
/// token's, body.
async fn wire_log(server: &MockServer) -> String {
    let mut log = String::new();
    for r in server.received_requests().await.unwrap_or_default() {
        log.push_str(&format!("{} {}\n", r.method, r.url));
        for (name, value) in r.headers.iter() {
            let value = value.to_str().unwrap_or("");
            if name.as_str() == "authorization" {
                assert_eq!(
                    value,
                    format!("Bearer {GITHUB_TOKEN}"),
                    "the token goes in its header"
                );
                continue;
            }
            log.push_str(&format!("{name}: {value}\n"));
        }
        log.push_str(&String::from_utf8_lossy(&r.body));
        log.push('\n');
    }
    log
}

/// `tribunal github comment` of pull request 17, marker `tribunal`, body
/// `text`, against the stand-in at `api`.
async fn comment_cli(api: &str, text: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.md");
    std::fs::write(&body, text).unwrap();
    let args: [&std::ffi::OsStr; 7] = [
        "comment".as_ref(),
        "--pr".as_ref(),
        PR.as_ref(),
        "--marker".as_ref(),
        "tribunal".as_ref(),
        "--body-file".as_ref(),
        body.as_os_str(),
    ];
    github_cli(api, &args).await
}

/// `tribunal github ARGS` against the stand-in at `api`, with the token.
async fn github_cli(api: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    tokio::process::Command::new(tribunal_bin())
        .arg("github")
        .args(args)
        .env("GITHUB_API_URL", api)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_first_push_creates_the_comment_and_the_second_updates_it() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let main = baseline(scratch.path());

    // The workflow gives the job a model key (a secret); the mock run has
    // no use for it, and it must not travel anywhere.
    let mut first = Job::new(
        &server,
        arena().to_str().unwrap(),
        &[("OPENAI_API_KEY", MODEL_KEY)],
    );
    let (code, log) = first.gate(Some(&main)).await;
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("github: created comment 9000 on #17"), "{log}");
    let after_first = comments.all();
    assert_eq!(after_first.len(), 1);
    let body = after_first[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.starts_with("<!-- tribunal-gate: tribunal -->\n"),
        "{body}"
    );
    assert!(body.contains("passes the gate"), "{body}");
    assert!(
        body.contains("**Mock:** both sides are a mock run"),
        "{body}"
    );
    // The job summary holds the same comparison.
    assert!(first.file("summary.md").contains("passes the gate"));

    // The second push breaks an item: the same comment now says so.
    let mut second = Job::new(
        &server,
        broken_arena(scratch.path()).to_str().unwrap(),
        &[("OPENAI_API_KEY", MODEL_KEY)],
    );
    let (code, log) = second.gate(Some(&main)).await;
    assert_eq!(code, Some(1), "a regression fails the job: {log}");
    assert!(log.contains("github: updated comment 9000 on #17"), "{log}");
    let after_second = comments.all();
    assert_eq!(after_second.len(), 1, "never a second comment");
    let body = after_second[0]["body"].as_str().unwrap();
    assert!(
        body.contains("❌ tribunal: `structured_output` regressed"),
        "{body}"
    );
    assert!(body.contains("**Newly failing (1)**"), "{body}");
    assert!(body.contains("`eiffel-tower` #0: PASS → FAIL"), "{body}");
    assert_eq!(second.output("exit-code").as_deref(), Some("1"));

    let wire = wire_log(&server).await;
    let posts = wire
        .lines()
        .filter(|l| l.starts_with("POST ") && l.contains("/repos/"))
        .count();
    assert_eq!(posts, 1, "one comment created: {wire}");
    assert!(wire.contains("PATCH "), "{wire}");
    for text in [
        &wire,
        &log,
        &first.file("summary.md"),
        &second.file("summary.md"),
    ] {
        assert!(!text.contains(GITHUB_TOKEN));
        assert!(!text.contains(MODEL_KEY));
    }
}

#[tokio::test]
async fn a_forks_pull_request_runs_without_the_secrets_and_says_so() {
    let comments = Comments::default();
    let server = github(&comments).await;
    let scratch = tempfile::tempdir().unwrap();
    let (clone, _) = repo(scratch.path(), &["arenas/structured_output"]);
    // The workflow asks for a live model; a fork's job has no key for it.
    let mut job = Job::new(
        &server,
        "arenas/structured_output",
        &[
            ("TG_BACKEND", "openai-chat"),
            ("TG_MODEL", "gpt-4.1-mini"),
            ("TG_FORK", "true"),
        ],
    )
    .in_repo(&clone);
    let (code, log) = job.gate(None).await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(job.output("mode").as_deref(), Some("fork-pr"));
    // A fork's run never looks for the stored (live) baseline.
    assert_eq!(job.output("stored").as_deref(), Some("false"));
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("Pull request from a fork: repository secrets are not given to it, so both sides ran the mock instead of openai-chat."),
        "{body}"
    );
    assert!(body.contains("**Mock:**"), "{body}");
    assert!(
        body.contains("Baseline: run in this job from `main`"),
        "{body}"
    );
    for side in ["head", "base"] {
        let rows = crate::json_lines(&job.work(side).join("arenas-structured_output.jsonl"));
        assert!(!rows.is_empty());
        assert!(rows.iter().all(|r| r["backend"] == "mock"), "{side}");
    }
    assert!(!log.contains(GITHUB_TOKEN));
}

#[tokio::test]
async fn a_refused_comment_fails_the_step_with_githubs_reason_and_no_token() {
    // Every call refused (the GraphQL `viewer` first of all).
    let server = tribunal_testkit::wire::own_server().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"message": format!("Resource not accessible by integration (token {GITHUB_TOKEN})")})),
        )
        .mount(&server)
        .await;
    let out = comment_cli(&server.uri(), "hello").await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("HTTP 403 \"Resource not accessible by integration (token [redacted])\""),
        "{stderr}"
    );
    assert!(stderr.contains("pull-requests: write"), "{stderr}");
    assert!(!stderr.contains(GITHUB_TOKEN));
}

/// Issue 59, row 11: an input is checked before it reaches an output or
/// the job's environment (a `name:` with a line break once wrote
/// `kind=…` into the step outputs, and every gate step ran only on kind
/// gate: the gate was skipped and the job ended green); every output and
/// variable is written between random delimiters; and the verdict fails on
/// a kind it does not know instead of being skipped.
#[tokio::test]
async fn an_input_cannot_set_an_output_and_an_unknown_kind_fails_the_verdict() {
    let comments = Comments::default();
    let server = github(&comments).await;
    for (input, value) in [
        ("TG_NAME", "tribunal\nkind=skipped"),
        ("TG_MODEL", "m\nLD_PRELOAD=/tmp/evil.so"),
        ("TG_ARENAS", "arenas/structured_output\nkind=skipped"),
        ("TG_REPEATS", "1\nkind=skipped"),
    ] {
        let mut job = Job::new(&server, "arenas/structured_output", &[(input, value)]);
        let (code, log) = job.stage("setup").await;
        assert_eq!(code, Some(2), "{input}: {log}");
        assert!(
            log.contains("::error title=tribunal gate::"),
            "{input}: {log}"
        );
        assert_eq!(job.output("kind"), None, "{input}: {}", job.file("output"));
        assert!(!job.file("env").contains("LD_PRELOAD"), "{input}");
    }

    // A good run's outputs and variables each sit between delimiters of
    // their own.
    let mut job = Job::new(&server, arena().to_str().unwrap(), &[]);
    let (code, log) = job.stage("setup").await;
    assert_eq!(code, Some(0), "{log}");
    for (file, key) in [("output", "kind"), ("env", "TG_MODEL")] {
        let text = job.file(file);
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key}<<")))
            .unwrap_or_else(|| panic!("{file}: {text}"));
        assert!(
            line.len() > key.len() + 2 + 16,
            "a random delimiter: {line}"
        );
    }
    assert_eq!(job.output("kind").as_deref(), Some("gate"));

    // The verdict runs whatever kind setup gave (action.yml: !cancelled())
    // and passes only on the two it knows.
    for (output, recorded, says) in [
        ("", "gate", "is not the kind it recorded"),
        ("skipped", "gate", "is not the kind it recorded"),
        ("baseline", "gate", "is not the kind it recorded"),
        (
            "skipped",
            "skipped",
            "kind 'skipped' is none the verdict knows",
        ),
    ] {
        job.set("TG_KIND_OUTPUT", output);
        job.set("TG_KIND", recorded);
        let (code, log) = job.stage("verdict").await;
        assert_eq!(code, Some(2), "{output}/{recorded}: {log}");
        assert!(log.contains(says), "{output}/{recorded}: {log}");
        assert!(log.contains("::error title=tribunal gate::"), "{log}");
    }
}

/// The action's declared inputs (action.yml).
fn action_inputs() -> Vec<String> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action/action.yml"))
            .unwrap();
    let action: Value = serde_norway::from_str(&text).unwrap();
    action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// The `with:` of the step that uses the action in a workflow.
fn action_step(workflow: &Value) -> Value {
    workflow["jobs"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|job| job["steps"].as_array().unwrap().clone())
        .find(|step| {
            step["uses"]
                .as_str()
                .is_some_and(|u| u.contains("tribunal/action@") || u == "./action")
        })
        .unwrap()
}

#[test]
fn the_workflows_give_the_action_only_inputs_it_declares_and_the_readme_shows_the_deploy_copy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inputs = action_inputs();
    let deploy_text =
        std::fs::read_to_string(root.join("deploy/github-actions/tribunal-gate.yml")).unwrap();
    let deploy: Value = serde_norway::from_str(&deploy_text).unwrap();
    for workflow in [
        deploy.clone(),
        serde_norway::from_str(
            &std::fs::read_to_string(root.join(".github/workflows/gate.yml")).unwrap(),
        )
        .unwrap(),
    ] {
        let step = action_step(&workflow);
        for key in step["with"].as_object().unwrap().keys() {
            assert!(inputs.contains(key), "{key} is not an input of action.yml");
        }
        assert_eq!(workflow["permissions"]["pull-requests"], "write");
        assert_eq!(workflow["permissions"]["actions"], "read");
    }
    // The CI guide's copy-paste block is the deploy workflow.
    let readme = std::fs::read_to_string(root.join("docs/ci-gate.md")).unwrap();
    let section = readme
        .split("## The pull-request gate (GitHub Actions)")
        .nth(1)
        .unwrap();
    let block = section
        .split("```yaml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let shown: Value = serde_norway::from_str(block).unwrap();
    assert_eq!(
        shown, deploy,
        "docs/ci-gate.md's workflow differs from deploy/github-actions/tribunal-gate.yml"
    );
}

/// The CI guide's rendered comment is the reviewed snapshot, quoted.
#[test]
fn the_readme_shows_the_comment_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let snap =
        std::fs::read_to_string(root.join("snapshots/judge/comment_nonsignificant_flip.snap"))
            .unwrap();
    let body = snap.splitn(3, "---").nth(2).unwrap().trim_matches('\n');
    let quoted: Vec<String> = body
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_string()
            } else {
                format!("> {l}")
            }
        })
        .collect();
    let readme = std::fs::read_to_string(root.join("docs/ci-gate.md")).unwrap();
    assert!(
        readme.contains(&quoted.join("\n")),
        "docs/ci-gate.md's example comment differs from snapshots/judge/comment_nonsignificant_flip.snap"
    );
}

/// `markdown` with every code span taken out (CommonMark: a run of N
/// backticks opens one, the next run of exactly N closes it; an unclosed
/// run is literal text): what GitHub renders as Markdown, links, mentions
/// and HTML.
fn outside_code_spans(markdown: &str) -> String {
    let chars: Vec<char> = markdown.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|c| **c == '`').count();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            match (j..chars.len()).find(|k| chars[*k] == '`') {
                Some(k) if run_at(k) == n => break Some(k),
                Some(k) => j = k + run_at(k),
                None => break None,
            }
        };
        match close {
            Some(k) => i = k + n,
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}
