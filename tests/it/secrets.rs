//! Secrets: with a recognisable fake key in the environment, every
//! command runs on every backend (mock, the three live APIs against local
//! servers, replay of what was recorded) at every log level with recording
//! on, and the key appears in no stdout, no stderr (the logs), and no file
//! written: results, reports (terminal, JSON, Markdown, JUnit, HTML),
//! transcripts, cassettes, stored verdicts, arena snapshots.
//!
//! The sweep is not vacuous: the logs are shown to be on (trace lines with
//! request bodies), and two hostile servers hand the key back — one inside
//! the model's answer, one quoting it in a 401 error — so the key really
//! reaches tribunal and is shown to be redacted (`[redacted]`) on the way in.

use crate::stand_in::{
    Api, Behaviour, FAKE_KEY, MODEL, arena, files_under, model_server_with, reviewer_server,
    stderr, stdout, tribunal,
};
use std::path::{Path, PathBuf};
use std::process::Output;
use tribunal::judge::snapshot::{SnapshotSource, arena_snapshot_blocking};
use wiremock::MockServer;

/// A distinctive part of [`FAKE_KEY`]: catches a key cut short or quoted.
const KEY_PART: &str = "SECRET-123";

/// How loud a command is asked to log.
#[derive(Debug, Clone, Copy)]
enum Level {
    Default,
    Info,
    Debug,
    Trace,
    /// `RUST_LOG=trace` with no `-v`: every crate's logs (hyper, reqwest, h2).
    RustLogTrace,
}

const LEVELS: [Level; 5] = [
    Level::Default,
    Level::Info,
    Level::Debug,
    Level::Trace,
    Level::RustLogTrace,
];

impl Level {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Level::Default | Level::RustLogTrace => &[],
            Level::Info => &["-v"],
            Level::Debug => &["-vv"],
            Level::Trace => &["-vvv"],
        }
    }

    fn traces(self) -> bool {
        matches!(self, Level::Trace | Level::RustLogTrace)
    }
}

/// Every output of the sweep so far, scanned at the end with every file.
#[derive(Default)]
struct Sweep {
    outputs: Vec<(String, String)>,
}

impl Sweep {
    /// Runs `tribunal args` at `level` with both providers' keys (and
    /// `base_urls`) in the environment; keeps stdout and stderr for the scan.
    async fn tribunal(
        &mut self,
        cwd: &Path,
        level: Level,
        base_urls: &[(&'static str, String)],
        args: &[String],
    ) -> Output {
        let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
        all.extend(level.flags());
        let mut env: Vec<(&str, String)> = vec![
            ("OPENAI_API_KEY", FAKE_KEY.to_string()),
            ("ANTHROPIC_API_KEY", FAKE_KEY.to_string()),
        ];
        env.extend(base_urls.iter().cloned());
        if let Level::RustLogTrace = level {
            env.push(("RUST_LOG", "trace".to_string()));
        }
        let o = tribunal(&all, cwd, &env).await;
        let what = format!("`tribunal {}` at {level:?}", all.join(" "));
        self.outputs.push((format!("stdout of {what}"), stdout(&o)));
        self.outputs.push((format!("stderr of {what}"), stderr(&o)));
        o
    }

    /// Asserts the key is in no output kept and no file under `dir`.
    fn assert_no_key(&self, dir: &Path) {
        for (what, text) in &self.outputs {
            assert_no_key_in(what, text);
        }
        for file in files_under(dir) {
            let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
            assert_no_key_in(&file.display().to_string(), &text);
        }
    }
}

fn assert_no_key_in(what: &str, text: &str) {
    assert!(
        !text.contains(FAKE_KEY) && !text.contains(KEY_PART),
        "the key is in {what}"
    );
}

fn exit(o: &Output) -> Option<i32> {
    o.status.code()
}

fn p(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// A command line: every argument turned into a `String`.
macro_rules! args {
    ($($arg:expr),* $(,)?) => { vec![$($arg.to_string()),*] };
}

/// The base URL variables of both providers, pointing at `server`.
fn base_urls(api: Api, server: &MockServer) -> Vec<(&'static str, String)> {
    vec![(api.base_url_var(), api.base_url(server))]
}

fn code_review() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/code_review")
}

/// The arguments of `judge run` on one code_review item, without a backend.
fn review_args(dir: &Path) -> Vec<String> {
    let prompt = dir.join("prompt.txt");
    std::fs::write(&prompt, "Review the change in CHANGE.diff. Is it correct?").unwrap();
    let schemas = code_review().join("schemas");
    args![
        "judge",
        "run",
        "--pass-schema",
        p(&schemas.join("green.json")),
        "--fail-schema",
        p(&schemas.join("red.json")),
        "--prompt",
        p(&prompt),
        "--root",
        p(&code_review().join("items/iterator_refactor")),
    ]
}

/// `run` of the structured_output arena on `api`, then `extra`.
fn live_run(api: Api, extra: Vec<String>) -> Vec<String> {
    let mut args = args![
        "run",
        p(&arena()),
        "--backend",
        api.cli_name(),
        "--model",
        MODEL
    ];
    args.extend(extra);
    args
}

/// `judge run` of one code_review item on `api`, then `extra`.
fn live_review(api: Api, dir: &Path, extra: Vec<String>) -> Vec<String> {
    let mut args = review_args(dir);
    args.extend(args!["--backend", api.cli_name(), "--model", MODEL]);
    args.extend(extra);
    args
}

/// The arena snapshot a user's `assert_arena_snapshot!` would take.
async fn snapshot_of(arena: PathBuf, source: SnapshotSource) -> serde_json::Value {
    tokio::task::spawn_blocking(move || arena_snapshot_blocking(&arena, &source).unwrap())
        .await
        .unwrap()
}

/// Every command on one live API at one log level, recording on, then the
/// same commands replayed from what was recorded.
async fn sweep_live(api: Api, level: Level, sweep: &mut Sweep, dir: &Path) {
    let (server, _) = model_server_with(api, Behaviour::Honest).await;
    let urls = base_urls(api, &server);
    let arena_dir = arena();
    let cassettes = dir.join("cassettes");
    let transcripts = dir.join("transcripts");
    let live = dir.join("live.jsonl");
    let live_args = live_run(
        api,
        args![
            "--record",
            p(&cassettes),
            "--transcripts",
            p(&transcripts),
            "--out",
            p(&live),
            "--report",
            "json",
            "--report-file",
            p(&dir.join("live.json")),
        ],
    );
    let o = sweep.tribunal(dir, level, &urls, &live_args).await;
    assert_eq!(exit(&o), Some(0), "{api:?} {level:?}: {}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&live).unwrap().lines().count(), 15);
    if level.traces() {
        assert!(
            stderr(&o).contains("request body"),
            "{api:?} {level:?}: the trace logs are off"
        );
    }

    // Shards on the live backend, then merged, in every report format.
    for shard in ["1/2", "2/2"] {
        let out = dir.join(format!("shard-{}.jsonl", &shard[..1]));
        let record = dir.join(format!("cassettes-{}", &shard[..1]));
        let args = live_run(
            api,
            args!["--shard", shard, "--record", p(&record), "--out", p(&out),],
        );
        let o = sweep.tribunal(dir, level, &urls, &args).await;
        assert_eq!(exit(&o), Some(0), "{api:?} {level:?}: {}", stderr(&o));
    }
    let (s1, s2) = (dir.join("shard-1.jsonl"), dir.join("shard-2.jsonl"));
    for format in ["terminal", "json", "markdown", "junit", "html"] {
        let report = dir.join(format!("merged.{format}"));
        let args = args![
            "merge",
            p(&s1),
            p(&s2),
            "--out",
            p(&dir.join("merged.jsonl")),
            "--report",
            format,
            "--report-file",
            p(&report),
        ];
        let o = sweep.tribunal(dir, level, &urls, &args).await;
        assert_eq!(exit(&o), Some(0), "{format}: {}", stderr(&o));
    }

    // The HTML report with the transcripts; compare live against merged.
    let html = dir.join("live.html");
    let args = args![
        "report",
        p(&live),
        "--html",
        p(&html),
        "--transcripts",
        p(&transcripts),
    ];
    let o = sweep.tribunal(dir, level, &urls, &args).await;
    assert_eq!(exit(&o), Some(0), "{}", stderr(&o));
    let merged = dir.join("merged.jsonl");
    let compare_html = dir.join("compare.html");
    let args = args!["compare", p(&live), p(&merged), "--html", p(&compare_html),];
    let o = sweep.tribunal(dir, level, &urls, &args).await;
    assert_eq!(exit(&o), Some(0), "{}", stderr(&o));

    // A live review, recorded.
    // A folder, as `run --record` takes: the cassette is <prompt>.jsonl in it.
    let review_cassette = dir.join("review-cassettes");
    let reviewer = reviewer_server(api, Behaviour::Honest).await;
    let args = live_review(api, dir, args!["--record", p(&review_cassette),]);
    let o = sweep
        .tribunal(dir, level, &base_urls(api, &reviewer), &args)
        .await;
    assert_eq!(exit(&o), Some(0), "{api:?} {level:?}: {}", stderr(&o));
    assert!(stdout(&o).contains("\"GREEN\""), "{}", stdout(&o));
    assert!(review_cassette.join("prompt.jsonl").is_file());
    drop(reviewer);
    drop(server);

    // Replays of both, with the servers gone.
    let replay = dir.join("replay.jsonl");
    let args = live_run(
        api,
        args![
            "--replay",
            p(&cassettes),
            "--out",
            p(&replay),
            "--report",
            "junit",
        ],
    );
    let o = sweep.tribunal(dir, level, &[], &args).await;
    assert_eq!(exit(&o), Some(0), "{api:?} {level:?}: {}", stderr(&o));
    let args = live_review(api, dir, args!["--replay", p(&review_cassette),]);
    let o = sweep.tribunal(dir, level, &[], &args).await;
    assert_eq!(exit(&o), Some(0), "{api:?} {level:?}: {}", stderr(&o));

    // The user-facing snapshot of the recorded run.
    let cassette = cassettes.join("structured_output.jsonl");
    let snapshot = snapshot_of(arena_dir, SnapshotSource::Replay(cassette)).await;
    let snapshot = serde_json::to_string_pretty(&snapshot).unwrap();
    assert!(snapshot.contains("\"PASS\""));
    sweep
        .outputs
        .push((format!("{api:?} {level:?} arena snapshot"), snapshot));
}

/// The servers that hand the key back: in the answer (the run and the review
/// complete, with `[redacted]` where the key was) and in a 401 error (every
/// item ends as ERROR; the error message, when logged, is redacted).
async fn sweep_hostile(api: Api, level: Level, sweep: &mut Sweep, dir: &Path) {
    for behaviour in [Behaviour::EchoKeyInAnswer, Behaviour::RejectQuotingKey] {
        let (server, _) = model_server_with(api, behaviour).await;
        let urls = base_urls(api, &server);
        let tag = format!("{behaviour:?}");
        let out = dir.join(format!("{tag}.jsonl"));
        let args = live_run(
            api,
            args![
                "--record",
                p(&dir.join(format!("{tag}-cassettes"))),
                "--transcripts",
                p(&dir.join(format!("{tag}-transcripts"))),
                "--out",
                p(&out),
                "--report",
                "json",
            ],
        );
        let o = sweep.tribunal(dir, level, &urls, &args).await;
        let rows = std::fs::read_to_string(&out).unwrap();
        assert_eq!(rows.lines().count(), 15, "{api:?} {tag}");
        match behaviour {
            Behaviour::EchoKeyInAnswer => {
                // Answers arrived, checks failed on the name, key redacted.
                assert_eq!(exit(&o), Some(1), "{api:?} {tag}: {}", stderr(&o));
                assert!(rows.contains("[redacted]"), "{api:?}: {rows}");
            }
            Behaviour::RejectQuotingKey | Behaviour::Honest => {
                assert_eq!(exit(&o), Some(1), "{api:?} {tag}: {}", stderr(&o));
                assert!(rows.contains("backend_error"), "{api:?}: {rows}");
                // The row says why — status, provider type and tribunal's
                // own detail naming the endpoint — not the message.
                assert!(
                    rows.contains(r#""backend_failure":{"kind":"http","status":401,"provider_type":"invalid_api_key","detail":"from http://127.0.0.1:"#),
                    "{api:?}: {rows}"
                );
                assert!(!rows.contains("Incorrect API key"), "{api:?}: {rows}");
            }
        }
        if level.traces() && behaviour == Behaviour::RejectQuotingKey {
            assert!(
                stderr(&o).contains("[redacted]"),
                "{api:?} {level:?}: the provider's error message was not logged"
            );
        }

        let reviewer = reviewer_server(api, behaviour).await;
        let args = live_review(
            api,
            dir,
            args!["--record", p(&dir.join(format!("{tag}-review"))),],
        );
        let o = sweep
            .tribunal(dir, level, &base_urls(api, &reviewer), &args)
            .await;
        match behaviour {
            Behaviour::EchoKeyInAnswer => {
                assert_eq!(exit(&o), Some(0), "{api:?} {tag}: {}", stderr(&o));
                assert!(stdout(&o).contains("[redacted]"), "{}", stdout(&o));
            }
            Behaviour::RejectQuotingKey | Behaviour::Honest => {
                assert_eq!(exit(&o), Some(2), "{api:?} {tag}: {}", stderr(&o));
                assert!(stdout(&o).contains("backend_error"), "{}", stdout(&o));
                let mut stored: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
                let detail = stored["backend_failure"]["detail"].take();
                assert!(
                    detail
                        .as_str()
                        .unwrap_or_default()
                        .starts_with("from http://127.0.0.1:"),
                    "{api:?}: {detail}"
                );
                assert_eq!(
                    stored["backend_failure"],
                    serde_json::json!({"kind": "http", "status": 401, "provider_type": "invalid_api_key", "detail": null}),
                    "{api:?}"
                );
            }
        }
    }
}

async fn sweep_api(api: Api) {
    for level in LEVELS {
        let dir = tempfile::tempdir().unwrap();
        let mut sweep = Sweep::default();
        sweep_live(api, level, &mut sweep, dir.path()).await;
        sweep_hostile(api, level, &mut sweep, dir.path()).await;
        sweep.assert_no_key(dir.path());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_leaks_nowhere_on_openai_chat() {
    sweep_api(Api::Chat).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_leaks_nowhere_on_openai_responses() {
    sweep_api(Api::Responses).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_leaks_nowhere_on_anthropic() {
    sweep_api(Api::Anthropic).await;
}

/// The commands that never reach a provider, and the mock backend, with the
/// keys in the environment at every log level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_leaks_nowhere_from_offline_commands() {
    let arena_dir = arena();
    let arena = p(&arena_dir);
    let schema = arena_dir.join("schema.json");
    let corpus = arena_dir.join("corpus.json");
    for level in LEVELS {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let mut sweep = Sweep::default();
        let out = dir.join("mock.jsonl");
        let transcripts = dir.join("transcripts");
        let runs: [Vec<String>; 7] = [
            args![
                "run",
                arena,
                "--out",
                p(&out),
                "--transcripts",
                p(&transcripts),
                "--report",
                "html",
                "--report-file",
                p(&dir.join("mock.html")),
            ],
            args!["lint", arena],
            args!["lint", p(&code_review())],
            args!["schema", "compile", p(&schema), "--target", "openai"],
            args!["schema", "compile", p(&schema), "--target", "anthropic"],
            args!["search", p(&corpus), "Eiffel Tower height"],
            args!["compare", p(&out), p(&out)],
        ];
        for args in runs {
            let o = sweep.tribunal(dir, level, &[], &args).await;
            assert_eq!(exit(&o), Some(0), "{args:?}: {}", stderr(&o));
        }

        let schemas = code_review().join("schemas");
        let submit = args![
            "judge",
            "submit",
            "--pass-schema",
            p(&schemas.join("green.json")),
            "--fail-schema",
            p(&schemas.join("red.json")),
            "--verdict",
            "GREEN",
            "--fields",
            r#"{"summary": "Same behaviour."}"#,
        ];
        let o = sweep.tribunal(dir, level, &[], &submit).await;
        assert_eq!(exit(&o), Some(0), "{}", stderr(&o));

        let script = dir.join("script.json");
        std::fs::write(
            &script,
            r#"[{"json": {"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}}}]"#,
        )
        .unwrap();
        let mut args = review_args(dir);
        args.extend(args!["--mock", p(&script)]);
        let o = sweep.tribunal(dir, level, &[], &args).await;
        assert_eq!(exit(&o), Some(0), "{}", stderr(&o));

        let mut check = tokio::process::Command::new(crate::tribunal_bin());
        check
            .args(["check", "--schema", &p(&schema)])
            .args(level.flags())
            .env("OPENAI_API_KEY", FAKE_KEY)
            .env("ANTHROPIC_API_KEY", FAKE_KEY)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if let Level::RustLogTrace = level {
            check.env("RUST_LOG", "trace");
        }
        let mut child = check.spawn().unwrap();
        {
            use tokio::io::AsyncWriteExt;
            let mut stdin = child.stdin.take().unwrap();
            stdin
                .write_all(br#"{"name": "x", "year": 1, "height_m": 1, "sources": ["p1"]}"#)
                .await
                .unwrap();
        }
        let o = child.wait_with_output().await.unwrap();
        sweep.outputs.push(("check stdout".into(), stdout(&o)));
        sweep.outputs.push(("check stderr".into(), stderr(&o)));

        let snapshot = snapshot_of(arena_dir.clone(), SnapshotSource::Mock).await;
        sweep
            .outputs
            .push(("mock arena snapshot".into(), snapshot.to_string()));
        sweep.assert_no_key(dir);
    }
}

/// No committed snapshot holds the fake key the test suites use.
#[test]
fn no_committed_snapshot_holds_the_test_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut scanned = 0;
    for file in files_under(&root.join("snapshots")) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert_no_key_in(&file.display().to_string(), &text);
        scanned += 1;
    }
    assert!(scanned > 100, "only {scanned} snapshots found");
}
