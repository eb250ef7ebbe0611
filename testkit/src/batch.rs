//! A local fake of the providers' batch APIs, in the shapes their
//! documentation gives, answering with a stand-in model:
//!
//! - OpenAI: `POST /v1/files` (multipart, purpose `batch`), `POST /v1/batches`,
//!   `GET /v1/batches/{id}`, `GET /v1/files/{id}/content` — the output and
//!   error files as JSONL lines `{id, custom_id, response: {status_code,
//!   body}, error}`;
//! - Anthropic: `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`,
//!   `GET /v1/messages/batches/{id}/results` — lines `{custom_id, result:
//!   {type: succeeded|errored|expired|canceled, …}}`;
//! - and the online endpoint of the same API, answered by the same model,
//!   so an online run and a batch run can be compared on one fake.
//!
//! A batch is answered when it is created; until [`Fake::release`] it can
//! be held `in_progress` ([`Fake::hold_from`]). It can also expire after its
//! first N requests, and refuse the requests of one landmark.

use crate::stand_in::{Api, FAKE_KEY, Model, Msg, landmark_of};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the fake is told to do with batches.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// A batch expires after answering this many of its requests.
    pub expire_after: Option<usize>,
    /// The requests for this landmark (named in the user message) fail
    /// inside the batch (`invalid_request_error`).
    pub refuse: Option<String>,
    /// A model that refuses a sampling setting, with the provider's own
    /// error: on OpenAI's APIs any body with a `temperature` (`param`
    /// `temperature`, as a reasoning model answers), on Anthropic's a body
    /// with a `temperature` and a `top_p`.
    pub refuse_sampling: bool,
}

/// A model answering one request body (the online answer).
pub type Player = Arc<dyn Fn(&Value) -> Result<Value, String> + Send + Sync>;

/// The fake's record of what it was sent.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Every `custom_id` of every batch created, in order (a request paid
    /// twice shows up twice).
    pub submitted: Vec<String>,
    /// The batches created, by id, with their request count.
    pub batches: Vec<(String, usize)>,
    /// Online requests answered.
    pub online: usize,
}

struct Batch {
    /// Its number among the batches, from 1.
    seq: usize,
    created_at: u64,
    total: usize,
    /// (custom_id, outcome): the answer body, or (error type, message).
    outcomes: Vec<(String, Outcome)>,
}

enum Outcome {
    Answer(Value),
    /// Answered with an error status inside the batch: the error object
    /// (`type`, `message`, maybe `param`).
    Refused(Value),
    Expired,
}

#[derive(Default)]
struct State {
    files: HashMap<String, Vec<u8>>,
    batches: HashMap<String, Batch>,
    next: u64,
}

/// An `invalid_request_error` saying `message`.
fn invalid(message: &str) -> Value {
    json!({"type": "invalid_request_error", "message": message})
}

/// The fake: a wiremock server and handles on it.
pub struct Fake {
    /// The server, answering every path.
    pub server: MockServer,
    /// What it was sent.
    pub ledger: Arc<Mutex<Ledger>>,
    /// Batches numbered this or more (from 1) stay in progress; 0: none.
    held: Arc<AtomicUsize>,
}

impl Fake {
    /// A fake of `api` answering with `player`, following `script`.
    pub async fn start(api: Api, player: Player, script: Script) -> Fake {
        let server = crate::wire::own_server().await;
        let ledger = Arc::new(Mutex::new(Ledger::default()));
        let held = Arc::new(AtomicUsize::new(0));
        Mock::given(any())
            .respond_with(Responder {
                api,
                player,
                script,
                ledger: ledger.clone(),
                held: held.clone(),
                state: Mutex::new(State::default()),
            })
            .mount(&server)
            .await;
        Fake {
            server,
            ledger,
            held,
        }
    }

    /// A fake of `api` playing the structured_output arena honestly.
    pub async fn landmarks(api: Api, script: Script) -> Fake {
        let model = Model::honest(api);
        let player: Player = Arc::new(move |body| model.reply_to(body, true, FAKE_KEY));
        Fake::start(api, player, script).await
    }

    /// Keeps the `n`-th batch (from 1) and every later one `in_progress`
    /// until [`release`](Self::release).
    pub fn hold_from(&self, n: usize) {
        self.held.store(n, Ordering::SeqCst);
    }

    /// Lets batches end.
    pub fn release(&self) {
        self.held.store(0, Ordering::SeqCst);
    }

    /// What it was sent so far (locked).
    pub fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap()
    }
}

struct Responder {
    api: Api,
    player: Player,
    script: Script,
    ledger: Arc<Mutex<Ledger>>,
    held: Arc<AtomicUsize>,
    state: Mutex<State>,
}

fn error(status: u16, kind: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "type": "error",
        "error": {"type": kind, "message": message}
    }))
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        if self.api.received_key(request) != FAKE_KEY {
            return error(401, "authentication_error", "invalid key");
        }
        let path = request.url.path().to_string();
        let method = request.method.as_str().to_string();
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (self.api, method.as_str(), segments.as_slice()) {
            (_, "POST", _) if path == self.api.endpoint() => self.online(request),
            (Api::Chat | Api::Responses, "POST", ["v1", "files"]) => self.upload(request),
            (Api::Chat | Api::Responses, "POST", ["v1", "batches"]) => self.create_openai(request),
            (Api::Chat | Api::Responses, "GET", ["v1", "batches", id]) => self.openai_batch(id),
            (Api::Chat | Api::Responses, "GET", ["v1", "files", id, "content"]) => {
                match self.state.lock().unwrap().files.get(*id) {
                    Some(bytes) => ResponseTemplate::new(200).set_body_bytes(bytes.clone()),
                    None => error(404, "not_found", "no such file"),
                }
            }
            (Api::Anthropic, "POST", ["v1", "messages", "batches"]) => {
                self.create_anthropic(request)
            }
            (Api::Anthropic, "GET", ["v1", "messages", "batches", id]) => self.anthropic_batch(id),
            (Api::Anthropic, "GET", ["v1", "messages", "batches", id, "results"]) => {
                self.anthropic_results(id)
            }
            _ => error(404, "not_found", &format!("{method} {path}")),
        }
    }
}

impl Responder {
    fn online(&self, request: &Request) -> ResponseTemplate {
        self.ledger.lock().unwrap().online += 1;
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return error(400, "invalid_request_error", "not JSON");
        };
        match (self.player)(&body) {
            Ok(answer) => ResponseTemplate::new(200).set_body_json(answer),
            Err(message) => error(400, "invalid_request_error", &message),
        }
    }

    /// Answers a batch's requests now, as the script says.
    fn create(&self, requests: Vec<(String, Value)>) -> String {
        let mut state = self.state.lock().unwrap();
        state.next += 1;
        let id = match self.api {
            Api::Anthropic => format!("msgbatch_{:04}", state.next),
            _ => format!("batch_{:04}", state.next),
        };
        let total = requests.len();
        let outcomes = requests
            .into_iter()
            .enumerate()
            .map(|(n, (custom_id, body))| {
                let asked_for = self.api.conversation(&body).iter().find_map(|m| match m {
                    Msg::User(text) => landmark_of(text),
                    _ => None,
                });
                let refused = self.script.refuse.is_some() && asked_for == self.script.refuse;
                let outcome = if self.script.expire_after.is_some_and(|k| n >= k) {
                    Outcome::Expired
                } else if refused {
                    Outcome::Refused(invalid("this request was refused"))
                } else if let Some(error) = self.sampling_refusal(&body) {
                    Outcome::Refused(error)
                } else {
                    match (self.player)(&body) {
                        Ok(answer) => Outcome::Answer(answer),
                        Err(message) => Outcome::Refused(invalid(&message)),
                    }
                };
                (custom_id, outcome)
            })
            .collect::<Vec<_>>();
        let mut ledger = self.ledger.lock().unwrap();
        ledger
            .submitted
            .extend(outcomes.iter().map(|(id, _)| id.clone()));
        ledger.batches.push((id.clone(), total));
        let seq = ledger.batches.len();
        let created_at = 1_700_000_000 + state.next;
        state.batches.insert(
            id.clone(),
            Batch {
                seq,
                created_at,
                total,
                outcomes,
            },
        );
        id
    }

    /// The error a model refusing a sampling setting answers `body` with
    /// ([`Script::refuse_sampling`]), if it refuses it.
    fn sampling_refusal(&self, body: &Value) -> Option<Value> {
        if !self.script.refuse_sampling {
            return None;
        }
        let has = |field: &str| body.get(field).is_some();
        match self.api {
            Api::Anthropic if has("temperature") && has("top_p") => Some(invalid(
                "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
            )),
            Api::Anthropic => None,
            _ if has("temperature") => Some(json!({
                "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value",
                "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."
            })),
            _ => None,
        }
    }

    fn ended(&self, batch: &Batch) -> bool {
        let from = self.held.load(Ordering::SeqCst);
        from == 0 || batch.seq < from
    }

    // OpenAI

    fn upload(&self, request: &Request) -> ResponseTemplate {
        let Some(boundary) = request
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split("boundary=").nth(1))
            .map(|b| format!("--{}", b.trim_matches('"')))
        else {
            return error(400, "invalid_request_error", "not multipart");
        };
        let body = String::from_utf8_lossy(&request.body).into_owned();
        let mut purpose = None;
        let mut file = None;
        for part in body.split(boundary.as_str()) {
            let Some((head, content)) = part.split_once("\r\n\r\n") else {
                continue;
            };
            let content = content.strip_suffix("\r\n").unwrap_or(content);
            if head.contains("name=\"purpose\"") {
                purpose = Some(content.to_string());
            } else if head.contains("name=\"file\"") {
                file = Some(content.as_bytes().to_vec());
            }
        }
        let (Some("batch"), Some(file)) = (purpose.as_deref(), file) else {
            return error(400, "invalid_request_error", "purpose batch and a file");
        };
        let mut state = self.state.lock().unwrap();
        state.next += 1;
        let id = format!("file-{:04}", state.next);
        let bytes = file.len();
        state.files.insert(id.clone(), file);
        ResponseTemplate::new(200).set_body_json(json!({
            "id": id, "object": "file", "bytes": bytes, "created_at": 1_700_000_000,
            "filename": "batch.jsonl", "purpose": "batch"
        }))
    }

    fn create_openai(&self, request: &Request) -> ResponseTemplate {
        let Ok(create) = serde_json::from_slice::<Value>(&request.body) else {
            return error(400, "invalid_request_error", "not JSON");
        };
        let endpoint = self.api.endpoint();
        if create["endpoint"] != endpoint || create["completion_window"] != "24h" {
            return error(400, "invalid_request_error", "endpoint or window");
        }
        let Some(file) = create["input_file_id"]
            .as_str()
            .and_then(|id| self.state.lock().unwrap().files.get(id).cloned())
        else {
            return error(400, "invalid_request_error", "no such input file");
        };
        let mut requests = Vec::new();
        for line in String::from_utf8_lossy(&file).lines() {
            let Ok(line) = serde_json::from_str::<Value>(line) else {
                return error(400, "invalid_request_error", "a line is not JSON");
            };
            if line["method"] != "POST" || line["url"] != endpoint {
                return error(400, "invalid_request_error", "a line's method or url");
            }
            let Some(id) = line["custom_id"].as_str() else {
                return error(400, "invalid_request_error", "a line without custom_id");
            };
            requests.push((id.to_string(), line["body"].clone()));
        }
        let id = self.create(requests);
        self.openai_batch(&id)
    }

    fn openai_batch(&self, id: &str) -> ResponseTemplate {
        let mut state = self.state.lock().unwrap();
        let Some(batch) = state.batches.get(id) else {
            return error(404, "not_found", "no such batch");
        };
        let ended = self.ended(batch);
        let expired = batch
            .outcomes
            .iter()
            .any(|(_, o)| matches!(o, Outcome::Expired));
        let mut object = json!({
            "id": id, "object": "batch", "endpoint": self.api.endpoint(),
            "completion_window": "24h", "created_at": batch.created_at,
            "status": "in_progress", "output_file_id": null, "error_file_id": null,
            "request_counts": {"total": batch.total, "completed": 0, "failed": 0}
        });
        if !ended {
            return ResponseTemplate::new(200).set_body_json(object);
        }
        let (mut output, mut errors) = (String::new(), String::new());
        let (mut completed, mut failed) = (0, 0);
        for (n, (custom_id, outcome)) in batch.outcomes.iter().enumerate() {
            let line = match outcome {
                Outcome::Answer(body) => {
                    completed += 1;
                    json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                        "response": {"status_code": 200, "request_id": format!("req_{n}"), "body": body},
                        "error": null})
                }
                Outcome::Refused(error) => {
                    failed += 1;
                    json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                        "response": {"status_code": 400, "request_id": format!("req_{n}"),
                            "body": {"error": error}},
                        "error": null})
                }
                Outcome::Expired => {
                    failed += 1;
                    json!({"id": format!("batch_req_{n}"), "custom_id": custom_id, "response": null,
                        "error": {"code": "batch_expired",
                            "message": "This request could not be executed before the completion window expired."}})
                }
            };
            // Refused requests are in the output file, with their status;
            // expired ones in the error file.
            let file = if matches!(outcome, Outcome::Expired) {
                &mut errors
            } else {
                &mut output
            };
            file.push_str(&line.to_string());
            file.push('\n');
        }
        let output_id = format!("file-out-{id}");
        let error_id = format!("file-err-{id}");
        object["status"] = json!(if expired { "expired" } else { "completed" });
        object["request_counts"] =
            json!({"total": batch.total, "completed": completed, "failed": failed});
        object["output_file_id"] = json!(output_id);
        if !errors.is_empty() {
            object["error_file_id"] = json!(error_id);
            state.files.insert(error_id, errors.into_bytes());
        }
        state.files.insert(output_id, output.into_bytes());
        ResponseTemplate::new(200).set_body_json(object)
    }

    // Anthropic

    fn create_anthropic(&self, request: &Request) -> ResponseTemplate {
        let Ok(create) = serde_json::from_slice::<Value>(&request.body) else {
            return error(400, "invalid_request_error", "not JSON");
        };
        let Some(list) = create["requests"].as_array() else {
            return error(400, "invalid_request_error", "no requests");
        };
        let mut requests = Vec::new();
        for r in list {
            let Some(id) = r["custom_id"].as_str() else {
                return error(400, "invalid_request_error", "a request without custom_id");
            };
            requests.push((id.to_string(), r["params"].clone()));
        }
        let id = self.create(requests);
        self.anthropic_batch(&id)
    }

    fn anthropic_batch(&self, id: &str) -> ResponseTemplate {
        let state = self.state.lock().unwrap();
        let Some(batch) = state.batches.get(id) else {
            return error(404, "not_found_error", "no such batch");
        };
        let ended = self.ended(batch);
        let count = |f: fn(&Outcome) -> bool| batch.outcomes.iter().filter(|(_, o)| f(o)).count();
        let counts = if ended {
            json!({"processing": 0,
                "succeeded": count(|o| matches!(o, Outcome::Answer(_))),
                "errored": count(|o| matches!(o, Outcome::Refused(_))),
                "canceled": 0,
                "expired": count(|o| matches!(o, Outcome::Expired))})
        } else {
            json!({"processing": batch.total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0})
        };
        ResponseTemplate::new(200).set_body_json(json!({
            "id": id, "type": "message_batch",
            "processing_status": if ended { "ended" } else { "in_progress" },
            "request_counts": counts,
            "created_at": "2026-12-02T10:00:00Z", "expires_at": "2026-12-03T10:00:00Z",
            "ended_at": if ended { json!("2026-12-02T10:05:00Z") } else { Value::Null },
            "results_url": if ended {
                json!(format!("https://elsewhere.invalid/v1/messages/batches/{id}/results"))
            } else { Value::Null },
        }))
    }

    fn anthropic_results(&self, id: &str) -> ResponseTemplate {
        let state = self.state.lock().unwrap();
        let Some(batch) = state.batches.get(id).filter(|b| self.ended(b)) else {
            return error(404, "not_found_error", "no results yet");
        };
        let mut out = String::new();
        for (custom_id, outcome) in &batch.outcomes {
            let result = match outcome {
                Outcome::Answer(message) => json!({"type": "succeeded", "message": message}),
                Outcome::Refused(error) => json!({"type": "errored", "error": {"type": "error",
                    "error": error}}),
                Outcome::Expired => json!({"type": "expired"}),
            };
            out.push_str(&json!({"custom_id": custom_id, "result": result}).to_string());
            out.push('\n');
        }
        ResponseTemplate::new(200).set_body_bytes(out.into_bytes())
    }
}
