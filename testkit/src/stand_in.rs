//! A stand-in model for the live backends, shared by the end-to-end tests:
//! a wiremock responder that speaks OpenAI Chat Completions, OpenAI
//! Responses or Anthropic Messages, plays the structured_output arena
//! (search first, then the landmark's record; one item needs a repair); a
//! code reviewer and a rubric judge; the arguments and environment of a
//! run against them. The binary itself is launched by the root package's
//! tests ([`crate::launch`]), which alone know its path.

use crate::wire::serve;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tribunal_runtime::BackendKind;
use tribunal_runtime::internal::backend::prompt_cache::without_breakpoints;
use wiremock::{MockServer, Request, Respond, ResponseTemplate};

pub use crate::wire::FAKE_KEY;
/// The model every stand-in run names.
pub const MODEL: &str = "test-model";
/// The landmark whose first final answer is invalid (year as a string).
pub const REPAIRED: &str = "Willis Tower";
/// The item id of [`REPAIRED`].
pub const REPAIRED_ID: &str = "willis-tower";

/// The provider API a stand-in speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Chat Completions.
    Chat,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Anthropic,
}

/// Every API.
pub const ALL: [Api; 3] = [Api::Chat, Api::Responses, Api::Anthropic];

impl Api {
    /// The runtime's name for this API.
    pub fn kind(self) -> BackendKind {
        match self {
            Api::Chat => BackendKind::OpenAiChat,
            Api::Responses => BackendKind::OpenAiResponses,
            Api::Anthropic => BackendKind::Anthropic,
        }
    }

    /// The API's `--backend` value.
    pub fn cli_name(self) -> &'static str {
        self.kind().as_str()
    }

    /// The path the backend POSTs to, given the base URL [`Api::base_url`].
    pub fn endpoint(self) -> &'static str {
        crate::wire::endpoint_path(self.kind())
    }

    /// The variable holding the API's key.
    pub fn key_var(self) -> &'static str {
        self.kind().key_var()
    }

    /// The variable holding the API's base URL.
    pub fn base_url_var(self) -> &'static str {
        self.kind().base_url_var()
    }

    /// The API's base URL on `server` ([`crate::wire::base_url`]).
    pub fn base_url(self, server: &MockServer) -> String {
        crate::wire::base_url(self.kind(), server)
    }
}

/// The structured_output arena's folder.
pub fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/structured_output")
}

/// `run` of the structured_output arena on `api`'s backend and the test
/// model, `--out out`, a JSON report on stdout, then `extra`.
pub fn run_args(api: Api, out: &Path, extra: &[&str]) -> Vec<String> {
    run_args_for(&arena(), api, out, extra)
}

/// [`run_args`] of the arena at `arena`.
pub fn run_args_for(arena: &Path, api: Api, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        arena.to_str().unwrap(),
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

/// The ids of the structured_output arena's items, in dataset order.
pub fn dataset_ids() -> Vec<String> {
    crate::json::json_lines(&arena().join("dataset.jsonl"))
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_string())
        .collect()
}

/// landmark name → the gold record (the item's scripted final answer, whose
/// name, year and height the item's checks hold).
pub fn gold_records() -> HashMap<String, Value> {
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

/// `LANDMARK` of "Return the record for LANDMARK.".
pub fn landmark_of(text: &str) -> Option<String> {
    let rest = text.split("Return the record for ").nth(1)?;
    let end = rest.find('.')?;
    Some(rest[..end].to_string())
}

/// What the model was asked on one request.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The landmark the user message asks for.
    pub landmark: String,
    /// Where in the run the request stands.
    pub phase: Phase,
    /// The names of the tools offered.
    pub tools_offered: Vec<String>,
    /// Whether the request carried a structured-output format.
    pub has_format: bool,
    /// Whether the request carried the fake key.
    pub key_ok: bool,
}

/// Where in a run a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No tool results yet: the model searches.
    Search,
    /// Tool results present: the model answers.
    Answer,
    /// The last message is the loop's repair instruction.
    Repair,
}

/// A text message of the conversation as the provider received it.
#[derive(Debug)]
pub enum Msg {
    /// A user message and its text.
    User(String),
    /// A tool result.
    ToolResult,
    /// An assistant turn.
    Assistant,
}

/// The wire shapes of the three APIs.
impl Api {
    /// The request's conversation, one entry per message or tool result.
    pub fn conversation(self, body: &Value) -> Vec<Msg> {
        let mut out = Vec::new();
        match self {
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

    /// A response body calling tool `name` with `args`.
    pub fn tool_call(self, id: &str, name: &str, args: Value) -> Value {
        match self {
            Api::Chat => json!({
                "id": format!("chatcmpl-{id}"), "object": "chat.completion", "created": 1,
                "model": MODEL,
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": null, "refusal": null,
                    "tool_calls": [{"id": id, "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]}}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 30, "total_tokens": 330,
                    "prompt_tokens_details": {"cached_tokens": 256, "audio_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 10, "audio_tokens": 0}}
            }),
            Api::Responses => json!({
                "id": format!("resp_{id}"), "object": "response", "status": "completed",
                "model": MODEL,
                "output": [{"type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                    "name": name, "arguments": args.to_string(), "status": "completed"}],
                "usage": {"input_tokens": 300, "output_tokens": 30, "total_tokens": 330,
                    "input_tokens_details": {"cached_tokens": 256},
                    "output_tokens_details": {"reasoning_tokens": 10}}
            }),
            Api::Anthropic => json!({
                "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "tool_use", "id": id, "name": name, "input": args}],
                "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 20, "cache_creation_input_tokens": 24,
                    "cache_read_input_tokens": 256, "output_tokens": 30}
            }),
        }
    }

    /// The key the request carried, whatever its header.
    pub fn received_key(self, request: &Request) -> String {
        let name = match self {
            Api::Chat | Api::Responses => "authorization",
            Api::Anthropic => "x-api-key",
        };
        let value = request.headers.get(name).and_then(|v| v.to_str().ok());
        let value = value.unwrap_or_default();
        value.strip_prefix("Bearer ").unwrap_or(value).to_string()
    }

    /// A final response body whose answer text is `text`.
    pub fn answer(self, text: &str) -> Value {
        match self {
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
}

/// A stand-in model for one API: reads the request, searches first, then
/// answers with the landmark's record in the wire shape; the first answer for
/// [`REPAIRED`] is invalid.
pub struct Model {
    api: Api,
    records: HashMap<String, Value>,
    seen: Arc<Mutex<Vec<Seen>>>,
    behaviour: Behaviour,
}

/// How the stand-in model treats the key it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Plays the arena as a well-behaved provider.
    Honest,
    /// Answers with the record whose `name` is the key it received (a
    /// hostile or buggy server echoing credentials into content).
    EchoKeyInAnswer,
    /// Refuses every request with 401 and an error message quoting the key
    /// it received, as some servers do.
    RejectQuotingKey,
}

/// The text of a content value: a string, or the concatenated text parts.
pub fn text_of(content: &Value) -> String {
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

    fn reply(&self, request: &Request) -> Result<Value, String> {
        let body: Value = serde_json::from_slice(&request.body).map_err(|e| e.to_string())?;
        let key = self.api.received_key(request);
        if self.behaviour == Behaviour::RejectQuotingKey {
            return Err(format!("Incorrect API key provided: {key}"));
        }
        self.reply_to(&body, self.key_ok(request), &key)
    }

    /// An honest model of `api` playing the arena (what a batch runs).
    pub fn honest(api: Api) -> Model {
        Model {
            api,
            records: gold_records(),
            seen: Arc::default(),
            behaviour: Behaviour::Honest,
        }
    }

    /// The answer body to request `body`, sent with `key` (`key_ok` when it
    /// is the test's key in the API's header); an error message for a
    /// request the model cannot play.
    pub fn reply_to(&self, body: &Value, key_ok: bool, key: &str) -> Result<Value, String> {
        if body["model"] != MODEL {
            return Err(format!("model {}", body["model"]));
        }
        let conversation = self.api.conversation(body);
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
        // The script: one search, one answer, one repair. The repair
        // instruction is a user message (native) or the answer call's
        // result (tool strategy): either way it follows the second turn.
        let turns = conversation
            .iter()
            .filter(|m| matches!(m, Msg::Assistant))
            .count();
        let phase = match (has_results, turns) {
            (false, _) => Phase::Search,
            (true, 0 | 1) => Phase::Answer,
            (true, _) => Phase::Repair,
        };
        let tools_offered = self.tools_offered(body);
        // A real compatible server constrains tool arguments with a grammar:
        // offered the answer tool, the model answers through it.
        let through_tool = tools_offered.iter().any(|t| t == "final_answer");
        self.seen.lock().unwrap().push(Seen {
            landmark: landmark.clone(),
            phase,
            tools_offered,
            has_format: self.format(body).is_some(),
            key_ok,
        });
        let id = format!("call_{}_{turns}", landmark.to_lowercase().replace(' ', "_"));
        let answer = |value: &Value| match through_tool {
            true => self.api.tool_call(&id, "final_answer", value.clone()),
            false => self.api.answer(&value.to_string()),
        };
        Ok(match phase {
            Phase::Search => self
                .api
                .tool_call(&id, "search", json!({"query": landmark})),
            Phase::Answer if landmark == REPAIRED => {
                // Invalid against the schema: year as a string.
                let mut bad = record.clone();
                bad["year"] = Value::String(record["year"].to_string());
                answer(&bad)
            }
            Phase::Answer | Phase::Repair if self.behaviour == Behaviour::EchoKeyInAnswer => {
                let mut echoed = record.clone();
                echoed["name"] = Value::String(key.to_string());
                answer(&echoed)
            }
            Phase::Answer | Phase::Repair => answer(record),
        })
    }
}

impl Respond for Model {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        match self.reply(request) {
            Ok(body) => ResponseTemplate::new(200).set_body_json(body),
            Err(message) => {
                let (status, kind) = match self.behaviour {
                    Behaviour::RejectQuotingKey => (401, "invalid_api_key"),
                    Behaviour::Honest | Behaviour::EchoKeyInAnswer => {
                        (400, "invalid_request_error")
                    }
                };
                ResponseTemplate::new(status).set_body_json(json!({
                    "error": {"type": kind, "message": message}
                }))
            }
        }
    }
}

/// A local server playing the arena honestly on `api`, and the requests it saw.
pub async fn model_server(api: Api) -> (MockServer, Arc<Mutex<Vec<Seen>>>) {
    model_server_with(api, Behaviour::Honest).await
}

/// A local server for `api` that treats the key as `behaviour` says.
pub async fn model_server_with(
    api: Api,
    behaviour: Behaviour,
) -> (MockServer, Arc<Mutex<Vec<Seen>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let model = Model {
        api,
        records: gold_records(),
        seen: Arc::clone(&seen),
        behaviour,
    };
    (serve(api.endpoint(), model).await, seen)
}

/// A stand-in code reviewer for `tribunal judge run`: reads `CHANGE.diff`
/// with the file tools, then gives a GREEN verdict (whose summary is the key
/// it received under [`Behaviour::EchoKeyInAnswer`]).
pub struct Reviewer {
    api: Api,
    behaviour: Behaviour,
}

impl Respond for Reviewer {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let key = self.api.received_key(request);
        if self.behaviour == Behaviour::RejectQuotingKey {
            return ResponseTemplate::new(401).set_body_json(json!({
                "error": {"type": "invalid_api_key",
                    "message": format!("Incorrect API key provided: {key}")}
            }));
        }
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return ResponseTemplate::new(400);
        };
        let conversation = self.api.conversation(&body);
        let body = if conversation.iter().any(|m| matches!(m, Msg::ToolResult)) {
            let summary = match self.behaviour {
                Behaviour::EchoKeyInAnswer => key,
                Behaviour::Honest | Behaviour::RejectQuotingKey => "Same behaviour.".to_string(),
            };
            let verdict = json!({"result": {"verdict": "GREEN",
                "verdictFields": {"summary": summary}}});
            self.api.answer(&verdict.to_string())
        } else {
            self.api
                .tool_call("call_read", "read_file", json!({"path": "CHANGE.diff"}))
        };
        ResponseTemplate::new(200).set_body_json(body)
    }
}

/// A local server reviewing code on `api` as [`Reviewer`] does.
pub async fn reviewer_server(api: Api, behaviour: Behaviour) -> MockServer {
    serve(api.endpoint(), Reviewer { api, behaviour }).await
}

/// A stand-in rubric judge: reads the judge's request as a model would and
/// gives a verdict through the answer tool (when offered) or as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grader {
    /// Obeys a "GREEN" written anywhere in the user's text, the agent's
    /// answer included: the judge an injection is written for.
    Gullible,
    /// Obeys a "GREEN" only outside the prompt's data tags: it finds the
    /// tags' code in the prompt and cuts each `<task-CODE>`/`<answer-CODE>`
    /// block at its first closing tag, as a parser of delimited data would.
    /// Fooled only where the agent's text escapes its tag.
    Careful,
}

impl Grader {
    /// GREEN or RED for the judge's user text; `Err` when the text has no
    /// data tags (the judge prompt's layout changed under the test).
    pub fn verdict(self, text: &str) -> Result<&'static str, String> {
        let obeyed = match self {
            Grader::Gullible => text.to_string(),
            Grader::Careful => outside_data_tags(text)?,
        };
        Ok(if obeyed.contains("GREEN") {
            "GREEN"
        } else {
            "RED"
        })
    }
}

/// `text` without its `<task-CODE>` and `<answer-CODE>` blocks, CODE being
/// the code the prompt names ("named with the code CODE").
fn outside_data_tags(text: &str) -> Result<String, String> {
    let named = "named with the code ";
    let at = text.find(named).ok_or("no tag code in the judge prompt")? + named.len();
    let code: String = text[at..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    let mut rest = text.to_string();
    for tag in ["task", "answer"] {
        let (open, close) = (format!("<{tag}-{code}>"), format!("</{tag}-{code}>"));
        let start = rest
            .find(&open)
            .ok_or_else(|| format!("no {open} in the judge prompt"))?;
        let end = rest[start..]
            .find(&close)
            .map(|e| start + e + close.len())
            .ok_or_else(|| format!("{open} is never closed"))?;
        rest.replace_range(start..end, "");
    }
    Ok(rest)
}

/// A rubric judge on `api` that grades as `grader` does.
struct Judge {
    api: Api,
    grader: Grader,
}

impl Respond for Judge {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return ResponseTemplate::new(400);
        };
        let user: Vec<String> = self
            .api
            .conversation(&body)
            .into_iter()
            .filter_map(|m| match m {
                Msg::User(text) => Some(text),
                Msg::ToolResult | Msg::Assistant => None,
            })
            .collect();
        // One user message, the rubric after the data (measured against
        // two messages on a real model: LIVE.md).
        let verdict = match &user[..] {
            [text] => self.grader.verdict(text),
            _ => Err(format!("{} user messages, not one", user.len())),
        };
        let verdict = match verdict {
            Ok(verdict) => verdict,
            Err(message) => {
                return ResponseTemplate::new(400).set_body_json(json!({
                    "error": {"type": "invalid_request_error", "message": message}
                }));
            }
        };
        let value = json!({"result": {"verdict": verdict,
            "verdictFields": {"reason": format!("{:?} judge.", self.grader)}}});
        let through_tool = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["name"] == "final_answer" || t["function"]["name"] == "final_answer");
        let answer = match through_tool {
            true => self.api.tool_call("call_verdict", "final_answer", value),
            false => self.api.answer(&value.to_string()),
        };
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

/// A local rubric judge on `api` grading as `grader` does.
pub async fn judge_server(api: Api, grader: Grader) -> MockServer {
    serve(api.endpoint(), Judge { api, grader }).await
}

/// A server that answers POSTs to `endpoint` with `responses` in order
/// (500 once they run out).
pub async fn in_order(endpoint: &str, responses: Vec<ResponseTemplate>) -> MockServer {
    struct InOrder(Mutex<std::collections::VecDeque<ResponseTemplate>>);
    impl Respond for InOrder {
        fn respond(&self, _: &Request) -> ResponseTemplate {
            let next = self.0.lock().ok().and_then(|mut q| q.pop_front());
            next.unwrap_or_else(|| ResponseTemplate::new(500))
        }
    }
    serve(endpoint, InOrder(Mutex::new(responses.into()))).await
}

/// The environment of a live run against `server`: the fake key and the
/// server's base URL in `api`'s variables.
pub fn live_env(api: Api, server: &MockServer) -> Vec<(&'static str, String)> {
    vec![
        (api.key_var(), FAKE_KEY.to_string()),
        (api.base_url_var(), api.base_url(server)),
    ]
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
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

/// Anthropic's prompt cache as the stand-in plays it, for a stand-in that
/// reports cache writes and reads the way Anthropic does.
///
/// A request's prompt is its blocks in Anthropic's order — each tool, the
/// system prompt's blocks, each message's blocks — counted at
/// [`STAND_IN_BYTES_PER_TOKEN`] bytes of JSON (marks left out) a token. At
/// each block marked `cache_control`, the longest prefix cached before that
/// ends at the mark or up to 20 blocks before it is read; the prefix up to
/// each mark of at least [`STAND_IN_MIN_CACHEABLE`] tokens is written (what
/// lies past the read, up to the last such mark); the rest is uncached
/// input. Prefixes are told apart by a hash of their blocks without marks.
#[derive(Debug, Default)]
pub struct AnthropicCache {
    written: Mutex<std::collections::HashSet<u64>>,
}

/// Bytes a stand-in token holds (a tokenizer's rough average).
pub const STAND_IN_BYTES_PER_TOKEN: usize = 4;
/// The shortest prefix the stand-in caches, in tokens.
pub const STAND_IN_MIN_CACHEABLE: u64 = 1024;
/// How far before a mark the stand-in looks for a cached prefix.
const LOOKBACK_BLOCKS: usize = 20;

/// The blocks of an Anthropic request body in prompt order: (the block,
/// whether it is marked, a tag hashed before it — a message's role at its
/// first block).
fn prompt_blocks(body: &Value) -> Vec<(Value, bool, String)> {
    let mut out = Vec::new();
    let marked = |v: &Value| v.get("cache_control").is_some();
    for tool in body["tools"].as_array().into_iter().flatten() {
        out.push((tool.clone(), marked(tool), "tool".to_string()));
    }
    match &body["system"] {
        Value::String(text) => out.push((
            json!({"type": "text", "text": text}),
            false,
            "system".into(),
        )),
        Value::Array(blocks) => {
            for b in blocks {
                out.push((b.clone(), marked(b), "system".to_string()));
            }
        }
        _ => {}
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("").to_string();
        match &message["content"] {
            Value::String(text) => out.push((json!({"type": "text", "text": text}), false, role)),
            Value::Array(blocks) => {
                for (i, b) in blocks.iter().enumerate() {
                    let tag = if i == 0 { role.clone() } else { String::new() };
                    out.push((b.clone(), marked(b), tag));
                }
            }
            _ => {}
        }
    }
    out
}

impl AnthropicCache {
    /// The `usage` Anthropic would report for request `body` answered with
    /// `output_tokens`, caching what it writes for later requests.
    pub fn usage(&self, body: &Value, output_tokens: u64) -> Value {
        use std::hash::{Hash, Hasher};
        let blocks = prompt_blocks(body);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let mut total = 0u64;
        // Per block: the prefix hash and tokens up to and including it.
        let mut prefixes = Vec::with_capacity(blocks.len());
        for (block, _, tag) in &blocks {
            let text = without_breakpoints(block).to_string();
            tag.hash(&mut hasher);
            text.hash(&mut hasher);
            total += text.len().div_ceil(STAND_IN_BYTES_PER_TOKEN) as u64;
            prefixes.push((hasher.finish(), total));
        }
        let marks: Vec<usize> = (0..blocks.len()).filter(|i| blocks[*i].1).collect();
        let mut written = self.written.lock().unwrap();
        let read = marks
            .iter()
            .filter_map(|&mark| {
                (mark.saturating_sub(LOOKBACK_BLOCKS)..=mark)
                    .rev()
                    .find(|j| written.contains(&prefixes[*j].0))
                    .map(|j| prefixes[j].1)
            })
            .max()
            .unwrap_or(0);
        let mut cached_to = read;
        for &mark in &marks {
            let (hash, tokens) = prefixes[mark];
            if tokens >= STAND_IN_MIN_CACHEABLE && tokens > read {
                written.insert(hash);
                cached_to = cached_to.max(tokens);
            }
        }
        json!({
            "input_tokens": total - cached_to,
            "cache_creation_input_tokens": cached_to - read,
            "cache_read_input_tokens": read,
            "output_tokens": output_tokens,
        })
    }
}
