//! The pull-request gate (`action/action.yml`) run stage by stage, as its
//! composite steps run them, against a stand-in for the GitHub REST API: the
//! first push creates the gate's comment and the second updates the same
//! one; a fork's pull request runs without the secrets and says so; a
//! regression fails the job; no key reaches GitHub, the log or the comment.

use crate::tribunal_bin;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const REPO: &str = "acme/widgets";
const PR: &str = "17";
const GITHUB_TOKEN: &str = "ghs_standin_token_4f2a9c";
const MODEL_KEY: &str = "sk-standin-model-key-77b1";

/// The stand-in's issue comments: what GitHub would hold.
#[derive(Clone, Default)]
struct Comments(Arc<Mutex<Vec<Value>>>);

impl Comments {
    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
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

/// A stand-in GitHub holding the comments of pull request 17 and, when
/// `baseline_run` is given, one baseline artifact uploaded by that run on
/// `main`.
async fn github(comments: &Comments, baseline_run: Option<u64>) -> MockServer {
    let server = MockServer::start().await;
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
    let artifacts: Vec<Value> = baseline_run
        .into_iter()
        .flat_map(|run| {
            [
                json!({"id": 1, "name": "tribunal-baseline", "expired": false,
                       "created_at": "2026-12-01T10:00:00Z",
                       "workflow_run": {"id": run - 1, "head_branch": "main", "head_sha": "aaa"}}),
                json!({"id": 2, "name": "tribunal-baseline", "expired": false,
                       "created_at": "2026-12-02T10:00:00Z",
                       "workflow_run": {"id": run, "head_branch": "main", "head_sha": "bbb"}}),
                json!({"id": 3, "name": "tribunal-baseline", "expired": false,
                       "created_at": "2026-12-03T10:00:00Z",
                       "workflow_run": {"id": run + 1, "head_branch": "feature", "head_sha": "ccc"}}),
                json!({"id": 4, "name": "tribunal-baseline", "expired": true,
                       "created_at": "2026-12-03T11:00:00Z",
                       "workflow_run": {"id": run + 2, "head_branch": "main", "head_sha": "ddd"}}),
            ]
        })
        .collect();
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"total_count": artifacts.len(), "artifacts": artifacts})),
        )
        .mount(&server)
        .await;
    server
}

/// One job of the gate: its working folder and the files GitHub gives a step.
struct Job {
    dir: tempfile::TempDir,
    api: String,
    env: Vec<(String, String)>,
}

impl Job {
    fn new(server: &MockServer, arena: &Path, extra: &[(&str, &str)]) -> Job {
        let dir = tempfile::tempdir().unwrap();
        let mut env: Vec<(String, String)> = [
            ("TG_ARENAS", arena.to_str().unwrap()),
            ("TG_EVENT", "pull_request"),
            ("TG_PR", PR),
            ("TG_BASELINE_BRANCH", "main"),
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
        env.push((
            "TG_WORK".into(),
            dir.path().join("work").display().to_string(),
        ));
        env.push(("TRIBUNAL".into(), tribunal_bin().display().to_string()));
        for (var, file) in [
            ("GITHUB_OUTPUT", "output"),
            ("GITHUB_STEP_SUMMARY", "summary.md"),
            ("GITHUB_ENV", "env"),
        ] {
            env.push((var.into(), dir.path().join(file).display().to_string()));
        }
        Job {
            api: server.uri(),
            dir,
            env,
        }
    }

    fn work(&self, rel: &str) -> PathBuf {
        self.dir.path().join("work").join(rel)
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }

    /// Runs `gate.sh STAGE`; its exit code and its stdout + stderr.
    async fn stage(&self, stage: &str) -> (Option<i32>, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/gate.sh");
        let output = tokio::process::Command::new("bash")
            .arg(script)
            .arg(stage)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITHUB_API_URL", &self.api)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .await
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code(), log)
    }

    /// The stages of a pull request's job with a stored baseline (what
    /// `actions/download-artifact` would have put in `base/`): run,
    /// compare, comment, verdict. Returns the verdict's exit code and the
    /// whole log.
    async fn pull_request(&self, baseline: &Path) -> (Option<i32>, String) {
        let mut log = String::new();
        let (code, out) = self.stage("run").await;
        log.push_str(&out);
        assert_eq!(code, Some(0), "{log}");
        std::fs::create_dir_all(self.work("base")).unwrap();
        let slug = baseline_slug(&self.env);
        std::fs::copy(baseline, self.work("base").join(format!("{slug}.jsonl"))).unwrap();
        for stage in ["compare", "comment"] {
            let (code, out) = self.stage(stage).await;
            log.push_str(&out);
            assert_eq!(code, Some(0), "{stage}: {log}");
        }
        let (code, out) = self.stage("verdict").await;
        log.push_str(&out);
        (code, log)
    }
}

/// The results file name gate.sh gives TG_ARENAS' one arena.
fn baseline_slug(env: &[(String, String)]) -> String {
    let arena = &env.iter().find(|(k, _)| k == "TG_ARENAS").unwrap().1;
    arena.trim_end_matches('/').replace('/', "-")
}

/// The structured_output arena's mock results: the stored baseline of `main`.
fn baseline(dir: &Path) -> PathBuf {
    let out = dir.join("main.jsonl");
    let o = std::process::Command::new(tribunal_bin())
        .arg("run")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    out
}

/// A copy of the structured_output arena whose scripted answer for the
/// Eiffel Tower gives the wrong year: this change breaks one item.
fn broken_arena(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output");
    let dst = dir.join("arenas/structured_output");
    std::fs::create_dir_all(&dst).unwrap();
    for name in ["arena.toml", "corpus.json", "schema.json"] {
        std::fs::copy(src.join(name), dst.join(name)).unwrap();
    }
    let dataset = std::fs::read_to_string(src.join("dataset.jsonl")).unwrap();
    let broken = dataset.replacen(
        "\"year\": 1889, \"height_m\": 300, \"sources\"",
        "\"year\": 1901, \"height_m\": 300, \"sources\"",
        1,
    );
    assert_ne!(broken, dataset, "the Eiffel Tower's mock answer moved");
    std::fs::write(dst.join("dataset.jsonl"), broken).unwrap();
    dst
}

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output")
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

#[tokio::test]
async fn the_first_push_creates_the_comment_and_the_second_updates_it() {
    let comments = Comments::default();
    let server = github(&comments, None).await;
    let scratch = tempfile::tempdir().unwrap();
    let main = baseline(scratch.path());

    // The workflow gives the job a model key (a secret); the mock run has
    // no use for it, and it must not travel anywhere.
    let first = Job::new(&server, &arena(), &[("OPENAI_API_KEY", MODEL_KEY)]);
    let (code, log) = first.pull_request(&main).await;
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
    let second = Job::new(
        &server,
        &broken_arena(scratch.path()),
        &[("OPENAI_API_KEY", MODEL_KEY)],
    );
    let (code, log) = second.pull_request(&main).await;
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
    assert!(second.file("output").contains("exit-code=1"));

    let wire = wire_log(&server).await;
    let posts = wire.matches("POST ").count();
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
    let server = github(&comments, None).await;
    let scratch = tempfile::tempdir().unwrap();
    let main = baseline(scratch.path());
    // The workflow asks for a live model; a fork's job has no key for it.
    let job = Job::new(
        &server,
        &arena(),
        &[
            ("TG_BACKEND", "openai-chat"),
            ("TG_MODEL", "gpt-4.1-mini"),
            ("TG_FORK", "true"),
        ],
    );
    let (code, log) = job.pull_request(&main).await;
    assert_eq!(code, Some(0), "{log}");
    let body = comments.all()[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("Pull request from a fork: repository secrets are not given to it, so both sides ran the mock instead of openai-chat."),
        "{body}"
    );
    assert!(body.contains("**Mock:**"), "{body}");
    let rows = crate::json_lines(
        &job.work("head")
            .join(format!("{}.jsonl", baseline_slug(&job.env))),
    );
    assert!(rows.iter().all(|r| r["backend"] == "mock"));
    assert!(!log.contains(GITHUB_TOKEN));
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
async fn find_baseline_picks_the_newest_unexpired_artifact_of_the_branch() {
    let comments = Comments::default();
    let server = github(&comments, Some(41)).await;
    let find = |branch: &'static str| {
        let api = server.uri();
        async move {
            let args = [
                "find-baseline",
                "--artifact",
                "tribunal-baseline",
                "--branch",
                branch,
            ];
            let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
            github_cli(&api, &args).await
        }
    };
    let out = find("main").await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout,
        "found=true\nartifact-id=2\nrun-id=41\nhead-sha=bbb\n"
    );
    let none = find("release").await;
    assert_eq!(String::from_utf8_lossy(&none.stdout), "found=false\n");
}

#[tokio::test]
async fn a_refused_comment_fails_the_step_with_githubs_reason_and_no_token() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"message": format!("Resource not accessible by integration (token {GITHUB_TOKEN})")})),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.md");
    std::fs::write(&body, "hello").unwrap();
    let args: [&std::ffi::OsStr; 7] = [
        "comment".as_ref(),
        "--pr".as_ref(),
        PR.as_ref(),
        "--marker".as_ref(),
        "tribunal".as_ref(),
        "--body-file".as_ref(),
        body.as_os_str(),
    ];
    let out = github_cli(&server.uri(), &args).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("HTTP 403 \"Resource not accessible by integration (token [redacted])\""),
        "{stderr}"
    );
    assert!(stderr.contains("pull-requests: write"), "{stderr}");
    assert!(!stderr.contains(GITHUB_TOKEN));
}

#[tokio::test]
async fn setup_writes_each_input_to_the_job_once_and_cannot_be_injected() {
    let comments = Comments::default();
    let server = github(&comments, None).await;
    // A model name that tries to set another variable of the job.
    let job = Job::new(
        &server,
        &arena(),
        &[
            ("TG_MODEL", "m\nLD_PRELOAD=/tmp/evil.so"),
            ("TG_EVENT", "push"),
            ("TG_BRANCH", "main"),
        ],
    );
    let (code, log) = job.stage("setup").await;
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(job.file("output"), "mode=baseline\n");
    let env = job.file("env");
    let line = env.lines().find(|l| l.starts_with("TG_MODEL<<")).unwrap();
    let delim = line.trim_start_matches("TG_MODEL<<");
    assert!(delim.len() > 16, "a random delimiter: {delim}");
    // The whole value, line break included, sits between its delimiters.
    assert!(env.contains(&format!(
        "TG_MODEL<<{delim}\nm\nLD_PRELOAD=/tmp/evil.so\n{delim}\n"
    )));
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
    // README's copy-paste block is the deploy workflow.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("### The pull-request gate (GitHub Actions)")
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
        "README's workflow differs from deploy/github-actions/tribunal-gate.yml"
    );
}

/// The release archive gate.sh installs on this machine, as the release
/// workflow packs it: `tribunal-<tag>-<target>/tribunal` in a `.tar.gz`.
fn release_archive(dir: &Path, tag: &str) -> (String, Vec<u8>) {
    let target = match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-gnu",
        _ => "x86_64-unknown-linux-gnu",
    };
    let name = format!("tribunal-{tag}-{target}");
    let folder = dir.join(&name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("tribunal"),
        "#!/bin/sh\necho 'tribunal 9.9.9'\n",
    )
    .unwrap();
    let archive = dir.join(format!("{name}.tar.gz"));
    let tar = std::process::Command::new("tar")
        .arg("-C")
        .arg(dir)
        .arg("-czf")
        .arg(&archive)
        .arg(&name)
        .status()
        .unwrap();
    assert!(tar.success());
    (name, std::fs::read(archive).unwrap())
}

/// `gate.sh install` with a release at the stand-in: the binary when the
/// checksum matches; a refusal, and nothing installed, when it does not.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn install_checks_the_release_checksum_before_it_installs() {
    let dir = tempfile::tempdir().unwrap();
    let tag = "v9.9.9";
    let (name, bytes) = release_archive(dir.path(), tag);
    let archive = dir.path().join(format!("{name}.tar.gz"));
    let sum = std::process::Command::new("sha256sum")
        .arg(&archive)
        .output()
        .unwrap();
    let sha = String::from_utf8_lossy(&sum.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(sha.len(), 64);
    for (case, checksum) in [("matching", sha.clone()), ("tampered", "0".repeat(64))] {
        let server = MockServer::start().await;
        let base = format!("/acme/tribunal/releases/download/{tag}/{name}.tar.gz");
        Mock::given(method("GET"))
            .and(path(base.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_bytes(bytes.clone()))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path(format!("{base}.sha256")))
            .respond_with(
                ResponseTemplate::new(200).set_body_string(format!("{checksum}  {name}.tar.gz\n")),
            )
            .mount(&server)
            .await;
        let bin = dir.path().join(format!("bin-{case}"));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/gate.sh");
        let out = tokio::process::Command::new("bash")
            .arg(&script)
            .arg("install")
            .env("TG_ARENAS", "unused")
            .env("TG_BIN_DIR", &bin)
            .env("TG_VERSION", tag)
            .env("TG_RELEASE_REPO", "acme/tribunal")
            .env("GITHUB_SERVER_URL", server.uri())
            // No fallback build in this test: a missing cargo fails loudly.
            .env("TG_SOURCE", "/nonexistent")
            .output()
            .await
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        if case == "matching" {
            assert_eq!(out.status.code(), Some(0), "{log}");
            assert!(
                log.contains(&format!(
                    "installed the release binary {name} (SHA-256 checked)"
                )),
                "{log}"
            );
            let version = std::process::Command::new(bin.join("tribunal"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&version.stdout), "tribunal 9.9.9\n");
        } else {
            assert_ne!(out.status.code(), Some(0), "{log}");
            assert!(log.contains("does not match"), "{log}");
            assert!(
                !bin.join("tribunal").exists(),
                "a tampered binary was installed"
            );
        }
    }
}

/// README's rendered comment is the reviewed snapshot, quoted.
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
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&quoted.join("\n")),
        "README's example comment differs from snapshots/judge/comment_nonsignificant_flip.snap"
    );
}
