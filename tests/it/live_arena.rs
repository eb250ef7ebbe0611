//! Issue 4, end to end: the structured_output arena passes through the real
//! `tribunal` binary against a local wiremock "model" on each live backend
//! (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages), including
//! one item whose first final answer is invalid and is fixed by the loop's
//! repair (sent without tools); a recorded run replays with no key and no
//! server; the API key never leaves the request headers.

use crate::tribunal_bin;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const FAKE_KEY: &str = "sk-test-SECRET-123";
const MODEL: &str = "test-model";
/// The landmark whose first final answer is invalid (year as a string).
const REPAIRED: &str = "Willis Tower";
const REPAIRED_ID: &str = "willis-tower";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Chat,
    Responses,
    Anthropic,
}

const ALL: [Api; 3] = [Api::Chat, Api::Responses, Api::Anthropic];

impl Api {
    fn cli_name(self) -> &'static str {
        match self {
            Api::Chat => "openai-chat",
            Api::Responses => "openai-responses",
            Api::Anthropic => "anthropic",
        }
    }

    /// The path the backend POSTs to, given the base URL [`Api::base_url`].
    fn endpoint(self) -> &'static str {
        match self {
            Api::Chat => "/v1/chat/completions",
            Api::Responses => "/v1/responses",
            Api::Anthropic => "/v1/messages",
        }
    }

    fn key_var(self) -> &'static str {
        match self {
            Api::Chat | Api::Responses => "OPENAI_API_KEY",
            Api::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    fn base_url_var(self) -> &'static str {
        match self {
            Api::Chat | Api::Responses => "OPENAI_BASE_URL",
            Api::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }

    /// OpenAI base URLs include `/v1` (`https://api.openai.com/v1`);
    /// Anthropic's does not (`https://api.anthropic.com`).
    fn base_url(self, server: &MockServer) -> String {
        match self {
            Api::Anthropic => server.uri(),
            Api::Chat | Api::Responses => format!("{}/v1", server.uri()),
        }
    }
}

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output")
}

/// landmark name → the gold record (the item's scripted final answer, whose
/// name, year and height the item's checks hold).
fn gold_records() -> HashMap<String, Value> {
    let text = std::fs::read_to_string(arena().join("dataset.jsonl")).unwrap();
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let item: Value = serde_json::from_str(line).unwrap();
        let landmark = landmark_of(item["input"].as_str().unwrap()).unwrap();
        let record = item["mock"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|turn| turn.get("json"))
            .unwrap()
            .clone();
        // The gold values the checks compare against.
        for check in item["checks"].as_array().unwrap() {
            if check["type"] == "json_path_equals" {
                let field = check["path"].as_str().unwrap();
                let (want, got) = (&check["value"], &record[field]);
                match want.as_f64() {
                    Some(w) => assert!((w - got.as_f64().unwrap()).abs() <= 1.0, "{line}"),
                    None => assert_eq!(want, got, "{line}"),
                }
            }
        }
        out.insert(landmark, record);
    }
    assert_eq!(out.len(), 15);
    out
}

/// `<landmark>` of "Return the record for <landmark>.".
fn landmark_of(text: &str) -> Option<String> {
    let rest = text.split("Return the record for ").nth(1)?;
    let end = rest.find('.')?;
    Some(rest[..end].to_string())
}

/// What the model was asked on one request.
#[derive(Debug, Clone)]
struct Seen {
    landmark: String,
    phase: Phase,
    tools_offered: Vec<String>,
    has_format: bool,
    key_ok: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No tool results yet: the model searches.
    Search,
    /// Tool results present: the model answers.
    Answer,
    /// The last message is the loop's repair instruction.
    Repair,
}

/// A text message of the conversation as the provider received it.
#[derive(Debug)]
enum Msg {
    User(String),
    ToolResult,
    Assistant,
}

/// A stand-in model for one API: reads the request, searches first, then
/// answers with the landmark's record in the wire shape; the first answer for
/// [`REPAIRED`] is invalid.
struct Model {
    api: Api,
    records: HashMap<String, Value>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// The text of a content value: a string, or the concatenated text parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

impl Model {
    fn conversation(&self, body: &Value) -> Vec<Msg> {
        let mut out = Vec::new();
        match self.api {
            Api::Chat => {
                for m in body["messages"].as_array().unwrap() {
                    match m["role"].as_str().unwrap() {
                        "user" => out.push(Msg::User(text_of(&m["content"]))),
                        "tool" => out.push(Msg::ToolResult),
                        "assistant" => out.push(Msg::Assistant),
                        _ => {}
                    }
                }
            }
            Api::Responses => {
                for item in body["input"].as_array().unwrap() {
                    match (item["type"].as_str(), item["role"].as_str()) {
                        (Some("function_call_output"), _) => out.push(Msg::ToolResult),
                        (Some("function_call"), _) | (_, Some("assistant")) => {
                            out.push(Msg::Assistant)
                        }
                        (_, Some("user")) => out.push(Msg::User(text_of(&item["content"]))),
                        _ => {}
                    }
                }
            }
            Api::Anthropic => {
                for m in body["messages"].as_array().unwrap() {
                    if m["role"] == "assistant" {
                        out.push(Msg::Assistant);
                        continue;
                    }
                    for block in m["content"].as_array().unwrap() {
                        match block["type"].as_str() {
                            Some("tool_result") => out.push(Msg::ToolResult),
                            Some("text") => out.push(Msg::User(text_of(&block["text"]))),
                            _ => {}
                        }
                    }
                }
            }
        }
        out
    }

    fn tools_offered(&self, body: &Value) -> Vec<String> {
        let tools = body.get("tools").and_then(Value::as_array);
        tools
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let name = match self.api {
                    Api::Chat => &t["function"]["name"],
                    Api::Responses | Api::Anthropic => &t["name"],
                };
                name.as_str().map(str::to_string)
            })
            .collect()
    }

    fn format(&self, body: &Value) -> Option<Value> {
        let schema = match self.api {
            Api::Chat => &body["response_format"]["json_schema"]["schema"],
            Api::Responses => &body["text"]["format"]["schema"],
            Api::Anthropic => &body["output_config"]["format"]["schema"],
        };
        (!schema.is_null()).then(|| schema.clone())
    }

    fn key_ok(&self, request: &Request) -> bool {
        let header = |name: &str| {
            request
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        match self.api {
            Api::Chat | Api::Responses => {
                header("authorization") == Some(format!("Bearer {FAKE_KEY}"))
            }
            Api::Anthropic => {
                header("x-api-key").as_deref() == Some(FAKE_KEY)
                    && header("anthropic-version").as_deref() == Some("2023-06-01")
            }
        }
    }

    fn tool_call(&self, id: &str, landmark: &str) -> Value {
        let args = json!({"query": landmark});
        match self.api {
            Api::Chat => json!({
                "id": format!("chatcmpl-{id}"), "object": "chat.completion", "created": 1,
                "model": MODEL,
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": null, "refusal": null,
                    "tool_calls": [{"id": id, "type": "function",
                        "function": {"name": "search", "arguments": args.to_string()}}]}}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
            }),
            Api::Responses => json!({
                "id": format!("resp_{id}"), "object": "response", "status": "completed",
                "model": MODEL,
                "output": [{"type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                    "name": "search", "arguments": args.to_string(), "status": "completed"}],
                "usage": {"input_tokens": 120, "output_tokens": 12, "total_tokens": 132}
            }),
            Api::Anthropic => json!({
                "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "tool_use", "id": id, "name": "search", "input": args}],
                "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 120, "output_tokens": 12}
            }),
        }
    }

    fn answer(&self, text: &str) -> Value {
        match self.api {
            Api::Chat => json!({
                "id": "chatcmpl-final", "object": "chat.completion", "created": 2, "model": MODEL,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": text, "refusal": null}}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 30, "total_tokens": 330}
            }),
            Api::Responses => json!({
                "id": "resp_final", "object": "response", "status": "completed", "model": MODEL,
                "output": [{"type": "message", "id": "msg_final", "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 300, "output_tokens": 30, "total_tokens": 330}
            }),
            Api::Anthropic => json!({
                "id": "msg_final", "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 300, "output_tokens": 30}
            }),
        }
    }

    fn reply(&self, request: &Request) -> Result<Value, String> {
        let body: Value = serde_json::from_slice(&request.body).map_err(|e| e.to_string())?;
        if body["model"] != MODEL {
            return Err(format!("model {}", body["model"]));
        }
        let conversation = self.conversation(&body);
        let landmark = conversation
            .iter()
            .find_map(|m| match m {
                Msg::User(text) => landmark_of(text),
                _ => None,
            })
            .ok_or("no landmark in the user message")?;
        let record = self
            .records
            .get(&landmark)
            .ok_or_else(|| format!("unknown landmark {landmark}"))?;
        let has_results = conversation.iter().any(|m| matches!(m, Msg::ToolResult));
        let user_texts = conversation
            .iter()
            .filter(|m| matches!(m, Msg::User(_)))
            .count();
        let phase = match (has_results, conversation.last()) {
            (false, _) => Phase::Search,
            (true, Some(Msg::User(_))) if user_texts > 1 => Phase::Repair,
            (true, _) => Phase::Answer,
        };
        self.seen.lock().unwrap().push(Seen {
            landmark: landmark.clone(),
            phase,
            tools_offered: self.tools_offered(&body),
            has_format: self.format(&body).is_some(),
            key_ok: self.key_ok(request),
        });
        let id = format!("call_{}", landmark.to_lowercase().replace(' ', "_"));
        Ok(match phase {
            Phase::Search => self.tool_call(&id, &landmark),
            Phase::Answer if landmark == REPAIRED => {
                // Invalid against the schema: year as a string.
                let mut bad = record.clone();
                bad["year"] = Value::String(record["year"].to_string());
                self.answer(&bad.to_string())
            }
            Phase::Answer | Phase::Repair => self.answer(&record.to_string()),
        })
    }
}

impl Respond for Model {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        match self.reply(request) {
            Ok(body) => ResponseTemplate::new(200).set_body_json(body),
            Err(message) => ResponseTemplate::new(400).set_body_json(json!({
                "error": {"type": "invalid_request_error", "message": message}
            })),
        }
    }
}

async fn model_server(api: Api) -> (MockServer, Arc<Mutex<Vec<Seen>>>) {
    let server = MockServer::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    Mock::given(method("POST"))
        .and(path(api.endpoint()))
        .respond_with(Model {
            api,
            records: gold_records(),
            seen: Arc::clone(&seen),
        })
        .mount(&server)
        .await;
    (server, seen)
}

/// Runs `tribunal` in `cwd` with `env` set and every provider, proxy and log
/// variable of the test's own environment removed.
async fn tribunal(args: &[&str], cwd: &Path, env: &[(&str, String)]) -> Output {
    let mut cmd = tokio::process::Command::new(tribunal_bin());
    cmd.args(args).current_dir(cwd);
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "RUST_LOG",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().await.unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The run's arguments: the arena, the backend, the model, `--out` and a JSON
/// report on stdout, then `extra`.
fn run_args(api: Api, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        arena().to_str().unwrap(),
        "--backend",
        api.cli_name(),
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
        "--report",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

async fn run(api: Api, cwd: &Path, args: &[String], env: &[(&str, String)]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = tribunal(&args, cwd, env).await;
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

    let text = std::fs::read_to_string(results).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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

/// Asserts what the model saw: per landmark a search turn offering `search`,
/// an answer turn, and for [`REPAIRED`] a repair turn with no tools; the key
/// in the auth header every time, the format on every request.
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
            assert!(turn.has_format, "{api:?}: no format on {turn:?}");
            match turn.phase {
                Phase::Repair => assert!(
                    turn.tools_offered.is_empty(),
                    "{api:?}: the repair offered tools: {turn:?}"
                ),
                Phase::Search | Phase::Answer => {
                    assert_eq!(turn.tools_offered, ["search"], "{api:?}: {turn:?}")
                }
            }
        }
    }
    assert_eq!(seen.len(), 15 * 2 + 1, "{api:?}");
}

fn live_env(api: Api, server: &MockServer) -> Vec<(&'static str, String)> {
    vec![
        (api.key_var(), FAKE_KEY.to_string()),
        (api.base_url_var(), api.base_url(server)),
    ]
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
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

        let replay_out = dir.path().join("replay.jsonl");
        let replay = run(
            api,
            dir.path(),
            &run_args(api, &replay_out, &["-vvv", "--replay", cassettes_arg]),
            &[],
        )
        .await;
        assert_all_pass(api, &stdout(&replay), &replay_out);

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
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = tribunal(&args, dir.path(), &[]).await;
        assert_eq!(o.status.code(), Some(2), "{api:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{api:?}: {err}");
        assert!(err.contains(api.key_var()), "{api:?}: {err}");
        assert!(stdout(&o).is_empty(), "{api:?}: {}", stdout(&o));
        assert!(!out.exists(), "{api:?}: a results file was written");
    }
}
