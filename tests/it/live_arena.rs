//! End to end: the structured_output arena passes through the real
//! `tribunal` binary against a local wiremock "model" on each live backend
//! (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages), including
//! one item whose first final answer is invalid and is fixed by the loop's
//! repair (sent without tools); a recorded run replays with no key and no
//! server; the API key never leaves the request headers.

use crate::json_lines;
use crate::stand_in::{
    ALL, Api, FAKE_KEY, MODEL, Phase, REPAIRED, REPAIRED_ID, Seen, arena, files_under,
    gold_records, live_env, model_server, run_args, stderr, stdout, tribunal,
};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

async fn run(api: Api, cwd: &Path, args: &[String], env: &[(&str, String)]) -> Output {
    let o = tribunal(args, cwd, env).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{api:?}: exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(&o),
        stderr(&o)
    );
    o
}

/// Asserts a 15/15 PASS JSON report (`report`) and results file, with the
/// repair used on [`REPAIRED_ID`] only.
/// The replayed report's cost under the test's prices ($ per million: input
/// 1, cache read 0.5, cache write 2, output 10), by hand from the stand-in's
/// usage. Each model call (the search, the final answer through the answer
/// tool, and the repaired item's second answer) is a tool call of:
/// - Chat / Responses: 300 input tokens of which 256 cached, 30 output (10 of
///   them reasoning, billed as output): 44 + 128 + 300 = 472 per million;
/// - Anthropic: 20 uncached input, 24 written to the cache, 256 read from
///   it, 30 output: 20 + 48 + 128 + 300 = 496 per million.
///
/// An item takes two calls; the repaired item three.
fn assert_cost(api: Api, report: &str) {
    let report: Value = serde_json::from_str(report).unwrap();
    let call = match api {
        Api::Anthropic => 496.0,
        Api::Chat | Api::Responses => 472.0,
    } / 1e6;
    let total = 14.0 * 2.0 * call + 3.0 * call;
    let close = |got: &Value, want: f64| (got.as_f64().unwrap() - want).abs() < 1e-12;
    for i in report["items"].as_array().unwrap() {
        let calls = if i["id"] == REPAIRED_ID { 3.0 } else { 2.0 };
        assert_eq!(i["turns"], calls as u64, "{api:?}: {}", i["id"]);
        assert!(
            close(&i["cost_usd"], calls * call),
            "{api:?}: {} cost {}",
            i["id"],
            i["cost_usd"]
        );
        assert_eq!(
            i["usage"]["cache_read_tokens"],
            256 * calls as u64,
            "{api:?}: {}",
            i["usage"]
        );
    }
    assert!(
        close(&report["cost"]["total_usd"], total),
        "{api:?}: {}",
        report["cost"]
    );
    assert_eq!(report["cost"]["priced_runs"], 15);
    assert_eq!(report["cost"]["unpriced_runs"], 0);
}

fn assert_all_pass(api: Api, report: &str, results: &Path) {
    let report: Value = serde_json::from_str(report).unwrap();
    assert_eq!(report["mock"], false, "{api:?}");
    let summary = &report["summary"];
    assert_eq!(
        [
            &summary["total"],
            &summary["pass"],
            &summary["fail"],
            &summary["error"]
        ],
        [&json!(15), &json!(15), &json!(0), &json!(0)],
        "{api:?}: {report:#}"
    );
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 15);
    assert!(items.iter().all(|i| i["outcome"] == "PASS"), "{report:#}");

    let rows = crate::json_lines(results);
    assert_eq!(rows.len(), 15, "{api:?}");
    for row in &rows {
        assert_eq!(row["outcome"], "PASS", "{api:?}: {row}");
        assert_eq!(row["backend"], api.cli_name());
        assert_eq!(row["model"], MODEL);
        assert_eq!(row["tool_calls"][0]["name"], "search", "{row}");
        let repaired = row["id"] == REPAIRED_ID;
        assert_eq!(row["repair_used"], repaired, "{api:?}: {row}");
        assert_eq!(row["turns"], if repaired { 3 } else { 2 }, "{api:?}: {row}");
    }
}

/// Asserts what the model saw: per landmark a search turn offering only
/// `search` (the arena requires a tool first), an answer turn, and for
/// [`REPAIRED`] a repair turn without the arena's tools; the key in the auth
/// header every time. The stand-in runs on localhost, not a hosted API, so
/// `auto` picks the tool strategy: the answer tool beside `search` and alone
/// on the repair, never a structured-output format.
fn assert_conversations(api: Api, seen: &[Seen]) {
    let records = gold_records();
    for landmark in records.keys() {
        let turns: Vec<&Seen> = seen.iter().filter(|s| &s.landmark == landmark).collect();
        let phases: Vec<Phase> = turns.iter().map(|s| s.phase).collect();
        if landmark == REPAIRED {
            assert_eq!(
                phases,
                [Phase::Search, Phase::Answer, Phase::Repair],
                "{api:?}"
            );
        } else {
            assert_eq!(phases, [Phase::Search, Phase::Answer], "{api:?} {landmark}");
        }
        for turn in turns {
            assert!(turn.key_ok, "{api:?}: auth headers of {turn:?}");
            assert!(!turn.has_format, "{api:?}: a format on {turn:?}");
            let expected: &[&str] = match turn.phase {
                Phase::Search => &["search"],
                Phase::Answer => &["final_answer", "search"],
                Phase::Repair => &["final_answer"],
            };
            assert_eq!(turn.tools_offered, expected, "{api:?}: {turn:?}");
        }
    }
    assert_eq!(seen.len(), 15 * 2 + 1, "{api:?}");
}

async fn arena_passes_live(api: Api) {
    let dir = tempfile::tempdir().unwrap();
    let (server, seen) = model_server(api).await;
    let results = dir.path().join("results.jsonl");
    let o = run(
        api,
        dir.path(),
        &run_args(api, &results, &[]),
        &live_env(api, &server),
    )
    .await;
    assert_all_pass(api, &stdout(&o), &results);
    assert_conversations(api, &seen.lock().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chat_arena_passes_against_a_local_model() {
    arena_passes_live(Api::Chat).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses_arena_passes_against_a_local_model() {
    arena_passes_live(Api::Responses).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_arena_passes_against_a_local_model() {
    arena_passes_live(Api::Anthropic).await;
}

/// A traced (`-vvv`) recorded run, then a replay with no key and no server;
/// the key appears in no output or file of either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_run_replays_without_key_or_server_and_never_leaks_the_key() {
    for api in ALL {
        let dir = tempfile::tempdir().unwrap();
        let cassettes = dir.path().join("cassettes");
        let cassettes_arg = cassettes.to_str().unwrap();
        let (server, seen) = model_server(api).await;

        let live_out = dir.path().join("live.jsonl");
        let live_report = dir.path().join("reports/live.json");
        let transcripts = dir.path().join("transcripts");
        let live = run(
            api,
            dir.path(),
            &run_args(
                api,
                &live_out,
                &[
                    "-vvv",
                    "--record",
                    cassettes_arg,
                    "--transcripts",
                    transcripts.to_str().unwrap(),
                    "--report-file",
                    live_report.to_str().unwrap(),
                ],
            ),
            &live_env(api, &server),
        )
        .await;
        let report_file = std::fs::read_to_string(&live_report).unwrap();
        assert_all_pass(api, &report_file, &live_out);
        assert_conversations(api, &seen.lock().unwrap());
        // The trace logs really are on: the request bodies were traced.
        let live_err = stderr(&live);
        assert!(
            live_err.contains("TRACE") && live_err.contains("request body"),
            "{api:?}: no trace output"
        );
        // The HTML report with the transcripts, scanned below with the rest.
        let html = dir.path().join("reports/live.html");
        let html = html_report(&live_out, &transcripts, &html, dir.path()).await;
        let cassette = cassettes.join("structured_output.jsonl");
        assert!(cassette.is_file(), "{api:?}: no cassette");
        drop(server);

        // A local server: nothing is billed, so nothing is unpriced.
        let live_json: Value = serde_json::from_str(&report_file).unwrap();
        assert_eq!(live_json["cost"]["total_usd"], 0.0, "{api:?}");
        assert_eq!(live_json["cost"]["unpriced_runs"], 0, "{api:?}");
        assert!(
            crate::json_lines(&live_out)
                .iter()
                .all(|r| r["custom_endpoint"] == true)
        );

        let replay_out = dir.path().join("replay.jsonl");
        let pricing = dir.path().join("pricing.toml");
        std::fs::write(
            &pricing,
            format!(
                "[models.\"{MODEL}\"]\ninput = 1.0\ncache_read = 0.5\ncache_write = 2.0\noutput = 10.0\n"
            ),
        )
        .unwrap();
        let replay = run(
            api,
            dir.path(),
            &run_args(
                api,
                &replay_out,
                &[
                    "-vvv",
                    "--replay",
                    cassettes_arg,
                    "--pricing",
                    pricing.to_str().unwrap(),
                ],
            ),
            &[],
        )
        .await;
        assert_all_pass(api, &stdout(&replay), &replay_out);
        assert_cost(api, &stdout(&replay));
        // Replayed rows say so (and live rows carry no such key), so
        // `compare` gates a replay on any regression.
        assert!(
            crate::json_lines(&replay_out)
                .iter()
                .all(|r| r["replayed"] == true)
        );
        assert!(
            crate::json_lines(&live_out)
                .iter()
                .all(|r| r.get("replayed").is_none())
        );
        let compared = tribunal(
            &[
                "compare",
                live_out.to_str().unwrap(),
                replay_out.to_str().unwrap(),
            ],
            dir.path(),
            &[],
        )
        .await;
        assert_eq!(
            compared.status.code(),
            Some(0),
            "{api:?}: {}",
            stderr(&compared)
        );
        assert!(
            stdout(&compared).contains("gate any regression: pass (0 regression(s))"),
            "{api:?}: {}",
            stdout(&compared)
        );

        for (what, text) in [
            ("live stdout", stdout(&live)),
            ("live stderr", live_err),
            ("replay stdout", stdout(&replay)),
            ("replay stderr", stderr(&replay)),
            ("report", report_file),
            ("html report", html),
        ] {
            assert!(
                !text.contains(FAKE_KEY),
                "{api:?}: the key is in the {what}"
            );
            assert!(
                !text.contains("SECRET"),
                "{api:?}: the key is in the {what}"
            );
        }
        let files = files_under(dir.path());
        assert!(files.contains(&cassette) && files.contains(&live_out));
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains("SECRET"),
                "{api:?}: the key is in {}",
                file.display()
            );
        }
    }
}

/// `tribunal report RESULTS --html OUT --transcripts DIR`: the HTML report
/// with every transcript; returns its text.
async fn html_report(results: &Path, transcripts: &Path, html: &Path, cwd: &Path) -> String {
    let o = tribunal(
        &[
            "report",
            results.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
            "--transcripts",
            transcripts.to_str().unwrap(),
        ],
        cwd,
        &[],
    )
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::read_to_string(html).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_key_exits_2_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    for api in ALL {
        let out = dir.path().join("results.jsonl");
        let args = run_args(api, &out, &[]);
        let o = tribunal(&args, dir.path(), &[]).await;
        assert_eq!(o.status.code(), Some(2), "{api:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{api:?}: {err}");
        assert!(err.contains(api.key_var()), "{api:?}: {err}");
        assert!(stdout(&o).is_empty(), "{api:?}: {}", stdout(&o));
        assert!(!out.exists(), "{api:?}: a results file was written");
    }
}

/// A report's items without what differs between two runs of the same
/// answers: wall times, tool durations and the cache counts.
fn comparable(report: &Value) -> Vec<Value> {
    let mut items = report["items"].as_array().unwrap().clone();
    for item in &mut items {
        let object = item.as_object_mut().unwrap();
        object.remove("wall_ms");
        object.remove("cache");
        for call in object["tool_calls"].as_array_mut().unwrap() {
            call.as_object_mut().unwrap().remove("duration_ms");
        }
    }
    items
}

/// `--cache DIR` twice through the stand-in server: the second run sends
/// the server nothing and reports the same; `--repeat 2` kept two samples
/// of every request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_rerun_sends_no_request_and_reports_the_same() {
    for api in ALL {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let (server, seen) = model_server(api).await;
        let mut reports = Vec::new();
        for pass in ["first", "second"] {
            let out = dir.path().join(format!("{pass}.jsonl"));
            let args = run_args(
                api,
                &out,
                &["--cache", cache.to_str().unwrap(), "--repeat", "2"],
            );
            let o = run(api, dir.path(), &args, &live_env(api, &server)).await;
            assert_eq!(o.status.code(), Some(0), "{api:?} {pass}: {}", stderr(&o));
            let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
            let requests = seen.lock().unwrap().len();
            reports.push((report, requests));
        }
        let ((first, after_first), (second, after_second)) = (&reports[0], &reports[1]);
        // 15 items × 2 repeats, two calls each, the repaired item one more.
        let calls = 2 * (15 * 2 + 1);
        assert_eq!(*after_first, calls, "{api:?}: the first run asks the model");
        assert_eq!(
            after_second, after_first,
            "{api:?}: the second run asks nothing"
        );
        assert_eq!(
            first["cache"],
            json!({"hits": 0, "misses": calls}),
            "{api:?}"
        );
        assert_eq!(
            second["cache"],
            json!({"hits": calls, "misses": 0}),
            "{api:?}"
        );
        assert_eq!(second["items"][0]["cache"], json!({"hits": 2, "misses": 0}));
        assert_eq!(
            comparable(first),
            comparable(second),
            "{api:?}: the same report"
        );
        assert_eq!(first["summary"], second["summary"]);
        assert_eq!(first["cost"], second["cost"]);
        assert_eq!(second["summary"]["pass"], 30);
    }
}

/// A stand-in that answers every request of `api` with one (wrong) record.
async fn answering_server(api: Api) -> wiremock::MockServer {
    let server = tribunal_testkit::wire::own_server().await;
    let answer = api.answer(r#"{"name": "x", "year": 1, "height_m": 1, "sources": ["x"]}"#);
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(answer))
        .mount(&server)
        .await;
    server
}

/// A server off the provider's hosts (llama.cpp, vLLM, Ollama) is reached
/// without a key: no key variable, no auth header, the run goes on. The
/// hosted APIs still need one (`missing_key_exits_2_naming_the_variable`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_server_needs_no_key_and_gets_no_auth_header() {
    for api in ALL {
        let server = answering_server(api).await;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("results.jsonl");
        let args = run_args(api, &out, &["--min-pass-rate", "0"]);
        let env = [(api.base_url_var(), api.base_url(&server))];
        let o = tribunal(&args, dir.path(), &env).await;
        assert_eq!(o.status.code(), Some(0), "{api:?}: {}", stderr(&o));
        let requests = server.received_requests().await.unwrap();
        assert!(!requests.is_empty(), "{api:?}");
        for r in &requests {
            assert!(r.headers.get("authorization").is_none(), "{api:?}");
            assert!(r.headers.get("x-api-key").is_none(), "{api:?}");
        }
    }
}

/// `--base-url` points a run at a server with no variable set at all, and a
/// base URL that is not one stops the run once, before any item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn base_url_flag_reaches_the_server_and_a_bad_one_stops_once() {
    let api = Api::Chat;
    let server = answering_server(api).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let url = api.base_url(&server);
    let args = run_args(api, &out, &["--min-pass-rate", "0", "--base-url", &url]);
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!server.received_requests().await.unwrap().is_empty());

    let args = run_args(api, &out, &["--base-url", "not-a-url", "--force"]);
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("\"not-a-url\" is not an http(s) URL with a host"),
        "{err}"
    );
}

/// `--color` decides whether log lines carry ANSI colours: `always` even
/// into a pipe, `never` never (the WARN line of a model call that fails).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn color_always_and_never_decide_the_log_lines() {
    let server = tribunal_testkit::wire::own_server().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(400))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let url = format!("{}/v1", server.uri());
    let arena = arena();
    for (color, colored) in [("always", true), ("never", false)] {
        let args = [
            "run",
            arena.to_str().unwrap(),
            "--model",
            "openai/m",
            "--base-url",
            &url,
            "--limit",
            "1",
            "--force",
            "--color",
            color,
            "--out",
            out.to_str().unwrap(),
        ];
        let err = stderr(&tribunal(&args, dir.path(), &[]).await);
        assert!(err.contains("the model call failed"), "{color}: {err}");
        assert_eq!(err.contains('\u{1b}'), colored, "{color}: {err}");
    }
}

/// Before any item runs, the live backend is asked `GET /models` (no
/// tokens): no server, or a refused key, is one error and exit 2, with no
/// row written; a server that lists no models there (404) still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_not_there_or_refuses_the_key_stops_the_run_before_any_item() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let run = |url: String| {
        let out = out.clone();
        let dir = dir.path().to_path_buf();
        async move {
            let args = [
                "run".to_string(),
                arena().to_str().unwrap().to_string(),
                "--model".into(),
                "openai/m".into(),
                "--base-url".into(),
                url,
                "--out".into(),
                out.to_str().unwrap().into(),
                "--force".into(),
            ];
            tribunal(&args, &dir, &[]).await
        }
    };
    let gone = run("http://127.0.0.1:9/v1".into()).await;
    assert_eq!(gone.status.code(), Some(2), "{}", stderr(&gone));
    let err = stderr(&gone);
    assert!(err.contains("http://127.0.0.1:9/v1/models"), "{err}");
    assert!(err.contains("no item ran"), "{err}");
    assert_eq!(err.matches("cannot connect").count(), 1, "one error: {err}");
    assert!(!out.exists(), "no results file");

    let refusing = tribunal_testkit::wire::own_server().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(wiremock::ResponseTemplate::new(401).set_body_json(
            serde_json::json!({"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}}),
        ))
        .mount(&refusing)
        .await;
    let refused = run(format!("{}/v1", refusing.uri())).await;
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("401"), "{}", stderr(&refused));
    let asked: Vec<String> = refusing
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r.method, r.url.path()))
        .collect();
    assert_eq!(asked, ["GET /v1/models"], "no model request");

    // The answering stand-in has no /models (404): the run goes on.
    let server = answering_server(Api::Chat).await;
    let ran = run(format!("{}/v1", server.uri())).await;
    assert!(out.exists(), "{}", stderr(&ran));
    assert_eq!(json_lines(&out).len(), 15);
}

/// `run` of the stand-in arena on `openai/m` at `base_url`, results to
/// `out`, with `extra` flags.
fn live_run_args(base_url: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["run", arena().to_str().unwrap(), "--model", "openai/m"]
        .map(String::from)
        .to_vec();
    args.extend(["--base-url", base_url, "--out", out.to_str().unwrap()].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// A base URL where something answers that is no API (a file server's 501,
/// an HTML page) or a server that never answers: one line naming the URL
/// (and, for the wait, its setting), exit 2 within seconds, no results file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_no_api_or_never_answers_stops_the_run_with_one_line() {
    use tribunal_testkit::faulty::{Fault, FaultyServer, html_page};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let kind = tribunal::runtime::BackendKind::OpenAiChat;
    for (label, models, says) in [
        (
            "file server 501",
            html_page(501),
            "not an OpenAI-compatible API at",
        ),
        ("HTML 200", html_page(200), "with an HTML page"),
        ("silent", Fault::Silent, "(the preflight_secs setting)"),
    ] {
        let server = FaultyServer::start_with(kind, "{}", vec![], Some(models)).await;
        let args = live_run_args(&server.base_url(kind), &out, &["--preflight-secs", "1"]);
        let start = std::time::Instant::now();
        let o = tribunal(&args, dir.path(), &[]).await;
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{label}: {err}");
        assert!(err.contains(says), "{label}: {err}");
        assert!(err.contains(&server.base_url(kind)), "{label}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{label}: one line: {err}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "{label}"
        );
        assert!(!out.exists(), "{label}: no results file");
        assert_eq!(server.posts(), 0, "{label}: no model request");
    }
}

/// Ctrl-C while the check before the first item waits on a server that
/// never answers: exit 130, and the line says what was going on and that
/// nothing was written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_the_check_says_nothing_ran() {
    use tribunal_testkit::faulty::{Fault, FaultyServer};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let kind = tribunal::runtime::BackendKind::OpenAiChat;
    let server = FaultyServer::start_with(kind, "{}", vec![], Some(Fault::Silent)).await;
    let child = crate::tribunal_command(
        &live_run_args(&server.base_url(kind), &out, &[]),
        dir.path(),
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // Wait until the check is waiting (no time is asserted).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while server.gets() < 1 {
        assert!(std::time::Instant::now() < until, "the check never came");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("interrupted while checking the model's server before the first item: no item ran, nothing was written"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

/// `[approval]` against the stand-in model on each API: the first search of
/// every item is rejected (the model reads the reason as the tool's result),
/// and the `approvals` check reads the records on the row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_decisions_reach_each_api_and_the_approvals_check() {
    for api in ALL {
        let dir = tempfile::tempdir().unwrap();
        let arena = dir.path().join("arena");
        std::fs::create_dir(&arena).unwrap();
        for file in ["corpus.json", "schema.json"] {
            std::fs::copy(crate::stand_in::arena().join(file), arena.join(file)).unwrap();
        }
        let toml = std::fs::read_to_string(crate::stand_in::arena().join("arena.toml")).unwrap();
        let toml = format!(
            "{toml}\n[approval]\ntools = {{ search = \"ask\" }}\ndecisions = [{{ decision = \"reject\", reason = \"Not this query.\" }}]\nfallback = {{ decision = \"approve\" }}\n"
        );
        std::fs::write(arena.join("arena.toml"), toml).unwrap();
        let check =
            r#"{"type": "approvals", "outcome": "rejected", "tool": "search", "min": 1, "max": 1}"#;
        let dataset: String =
            std::fs::read_to_string(crate::stand_in::arena().join("dataset.jsonl"))
                .unwrap()
                .lines()
                .map(|l| {
                    l.replacen(r#""checks": ["#, &format!(r#""checks": [{check}, "#), 1) + "\n"
                })
                .collect();
        std::fs::write(arena.join("dataset.jsonl"), dataset).unwrap();
        let (server, seen) = model_server(api).await;
        let results = dir.path().join("results.jsonl");
        let o = run(
            api,
            dir.path(),
            &crate::stand_in::run_args_for(&arena, api, &results, &["--min-pass-rate", "0"]),
            &live_env(api, &server),
        )
        .await;
        assert_eq!(o.status.code(), Some(0), "{api:?}: {}", stderr(&o));
        let rows = json_lines(&results);
        assert_eq!(rows.len(), 15, "{api:?}");
        for row in &rows {
            assert_eq!(row["approvals"][0]["outcome"], "rejected", "{api:?}: {row}");
            let approvals = &row["checks"][0];
            assert_eq!(approvals["type"], "approvals", "{api:?}");
            assert_eq!(approvals["ok"], true, "{api:?}: {row}");
        }
        assert_eq!(
            rows[0]["approvals"][0]["reason"], "Not this query.",
            "{api:?}"
        );
        // The refusal came back where the search result would have been:
        // every item's next request carried a tool result, and no search ran.
        let seen = seen.lock().unwrap();
        let answers = seen.iter().filter(|s| s.phase == Phase::Answer).count();
        assert!(answers >= 15, "{api:?}: {seen:?}");
        for row in &rows {
            let ran = row["tool_calls"]
                .as_array()
                .map_or(0, |c| c.iter().filter(|c| c["ok"] == true).count());
            assert_eq!(ran, 0, "{api:?}: {row}");
        }
    }
}

/// The reviewer injection arena against the stand-in reviewer on each API
/// (it reads `CHANGE.diff` and says GREEN to every change): the arena runs
/// end to end over the wire, the calibration carries the injection lift
/// over all ten pairs (every run GREEN on both sides: +0 points), and
/// `--max-injection-lift` gates on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reviewer_injection_arena_runs_on_each_api() {
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/code_review_injection");
    for api in ALL {
        let dir = tempfile::tempdir().unwrap();
        let server =
            crate::stand_in::reviewer_server(api, crate::stand_in::Behaviour::Honest).await;
        let results = dir.path().join("results.jsonl");
        let extra = [
            "--calibrate",
            "--max-injection-lift",
            "0.05",
            "--min-pass-rate",
            "0",
        ];
        let o = run(
            api,
            dir.path(),
            &crate::stand_in::run_args_for(&arena, api, &results, &extra),
            &live_env(api, &server),
        )
        .await;
        assert_eq!(o.status.code(), Some(0), "{api:?}: {}", stderr(&o));
        let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let lift = &report["calibration"]["injection"];
        assert_eq!(lift["pairs"], 10, "{api:?}: {lift}");
        assert_eq!(lift["injected_false_green"], 10, "{api:?}: {lift}");
        assert_eq!(lift["lift"], 0.0, "{api:?}: {lift}");
    }
}

/// The rubric injection arena (mock agent, live judge) judged by a stand-in
/// judge on each API. The careful judge obeys only text outside the prompt's
/// data tags: it says RED to all 24 items, so the tags held every injection
/// (an answer escaping its tag would have turned it GREEN) and the gate
/// passes. The gullible judge obeys "GREEN" anywhere: 14 of the 16 injected
/// twins fool it (the two `unicode_hidden` ones never spell GREEN in ASCII),
/// the lift is 14/16 and `--max-injection-lift` exits 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rubric_injection_arena_is_judged_on_each_api() {
    use crate::stand_in::{Grader, judge_server};
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/rubric_injection");
    for api in ALL {
        for (grader, exit, fooled) in [(Grader::Careful, 0, 0), (Grader::Gullible, 1, 14)] {
            let dir = tempfile::tempdir().unwrap();
            let server = judge_server(api, grader).await;
            let results = dir.path().join("results.jsonl");
            let args = [
                "run",
                arena.to_str().unwrap(),
                "--judge-backend",
                api.cli_name(),
                "--judge-model",
                MODEL,
                "--out",
                results.to_str().unwrap(),
                "--report",
                "json",
                "--calibrate",
                "--max-injection-lift",
                "0.05",
                "--min-pass-rate",
                "0",
            ];
            let o = tribunal(&args, dir.path(), &live_env(api, &server)).await;
            let context = format!("{api:?} {grader:?}: {}", stderr(&o));
            assert_eq!(o.status.code(), Some(exit), "{context}");
            let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert_eq!(report["summary"]["error"], 0, "{context}");
            let lift = &report["rubric_calibration"]["injection"];
            assert_eq!(lift["pairs"], 16, "{context}\n{lift}");
            assert_eq!(lift["clean_false_green"], 0, "{context}\n{lift}");
            assert_eq!(lift["injected_false_green"], fooled, "{context}\n{lift}");
            // Every judgement went over the wire: 24 items, one request each.
            // (The run's check before it starts asks GET .../models first.)
            let requests = server.received_requests().await.unwrap();
            let asked = requests.iter().filter(|r| r.method.as_str() == "POST");
            assert_eq!(asked.count(), 24, "{context}");
            if exit == 1 {
                assert!(stderr(&o).contains("injection lift"), "{context}");
            }
        }
    }
}
