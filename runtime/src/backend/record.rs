//! [`Recording`]: a [`Backend`] wrapper that writes every request and its
//! answer to a cassette, and the cassette format [`Replay`](super::replay::Replay) reads.
//!
//! A cassette is JSON Lines: a [`CassetteLine::Header`] (format version,
//! backend, model, schema target), then one [`CassetteLine::Exchange`] per
//! request: the request in provider-neutral form, its normalised key, and the
//! turn or error the wrapped backend returned — or `cut` when the run stopped
//! waiting for the answer (its deadline passed), so a replay ends that run as
//! the recorded one ended. Recording happens above the provider, so no URL,
//! header or key is ever seen here, let alone written.

use super::timeouts::Stage;
use super::{
    Backend, BackendError, BackendErrorKind, BackendInfo, DeltaSink, ModelRequest, OutputFormat,
    SchemaTarget, Wrapper, forward,
};
use crate::conversation::{ModelTurn, Usage};
use crate::output::{OutputStrategy, ToolChoice};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The cassette format version written, and the newest read. Version 2
/// added the `cut` outcome; a version 1 cassette has none and replays as it
/// always did.
pub(super) const CASSETTE_VERSION: u32 = 2;

/// One line of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum CassetteLine {
    /// The first line: what was recorded.
    Header {
        /// [`CASSETTE_VERSION`] at recording time.
        version: u32,
        /// The backend's name (`openai-chat`, …).
        backend: String,
        /// The model name.
        model: String,
        /// The backend's schema target, which replay reports.
        schema_target: SchemaTarget,
        /// The output strategy the requests were built for. Absent in
        /// cassettes written before strategies existed: native.
        #[serde(default)]
        strategy: OutputStrategy,
        /// Native strategy: whether tool turns carried the schema. Absent in
        /// older cassettes: they did.
        #[serde(default = "yes")]
        schema_on_tool_turns: bool,
        /// Whether calls written as text were read. Absent in older
        /// cassettes and when off.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        read_text_calls: bool,
    },
    /// One request and what came back.
    Exchange {
        /// [`request_key`] of the request.
        key: String,
        /// The request in provider-neutral form ([`request_json`]).
        request: Value,
        /// The answer.
        outcome: RecordedOutcome,
    },
}

impl CassetteLine {
    /// The header of a cassette recorded from a backend described by `info`.
    pub(super) fn header(info: &BackendInfo<'_>) -> CassetteLine {
        CassetteLine::Header {
            version: CASSETTE_VERSION,
            backend: info.name.to_string(),
            model: info.model.to_string(),
            schema_target: info.plan.target,
            strategy: info.plan.strategy,
            schema_on_tool_turns: info.plan.schema_on_tool_turns,
            read_text_calls: info.plan.read_text_calls,
        }
    }
}

/// What a recorded request produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedOutcome {
    /// A turn.
    Turn(ModelTurn),
    /// A failure (after the retries below the recorder).
    Error(RecordedError),
    /// No answer: the run stopped waiting for it — the driver's deadline
    /// dropped the call (or the run itself was dropped). Written as
    /// `"outcome": "cut"`; replayed as a
    /// [`DeadlineCut`](BackendErrorKind::DeadlineCut) error, which ends the
    /// run as `deadline_exceeded` at once.
    Cut,
}

/// A [`BackendError`] as written in a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedError {
    /// The error kind.
    pub kind: BackendErrorKind,
    /// The HTTP status, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's error type, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_type: Option<String>,
    /// The message.
    pub message: String,
    /// Where the request failed, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// The storable detail, if any ([`BackendError::detail`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Tokens spent before the failure.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub spent: Usage,
    /// The sampling field the model refused, if that was the failure
    /// (`BackendError::refused_sampling`): a batch run resumed from its
    /// journal sends the request again without it, as the first process would have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_sampling: Option<super::SamplingField>,
}

#[doc(hidden)] // for tribunal's own crates; no promise
impl From<&BackendError> for RecordedError {
    fn from(e: &BackendError) -> Self {
        RecordedError {
            kind: e.kind,
            status: e.status,
            provider_type: e.provider_type.clone(),
            message: e.message.clone(),
            stage: e.stage,
            detail: e.detail.clone(),
            spent: *e.spent,
            refused_sampling: e.refused_sampling,
        }
    }
}

#[doc(hidden)] // for tribunal's own crates; no promise
impl From<RecordedError> for BackendError {
    fn from(e: RecordedError) -> Self {
        let mut error = BackendError::new(e.kind, e.message);
        error.status = e.status;
        error.provider_type = e.provider_type;
        error.stage = e.stage;
        error.detail = e.detail;
        error.spent = Box::new(e.spent);
        error.refused_sampling = e.refused_sampling;
        error
    }
}

fn yes() -> bool {
    true
}

/// A request in provider-neutral JSON: system prompt, messages, tools, tool
/// choice (only when a call is required, so cassettes written before it
/// existed keep their keys), output format and token ceiling.
pub(super) fn request_json(request: &ModelRequest) -> Value {
    let output = match &request.output {
        OutputFormat::Text => json!({"type": "text"}),
        OutputFormat::JsonSchema { name, schema } => {
            json!({"type": "json_schema", "name": name, "schema": schema.as_ref()})
        }
    };
    let mut json = json!({
        "system": request.conversation.system,
        "messages": request.conversation.messages,
        "tools": request.tools,
        "output": output,
        "max_output_tokens": request.max_output_tokens,
    });
    if request.tool_choice == ToolChoice::Required {
        json["tool_choice"] = json!("required");
    }
    json
}

/// The normalised key replay matches requests by: the SHA-256 (hex) of
/// [`request_json`] with object keys sorted at every level and text trimmed
/// of surrounding whitespace, so key order and stray blanks don't matter.
pub(super) fn request_key(request: &ModelRequest) -> String {
    let canonical = normalise(&request_json(request));
    let digest = Sha256::digest(canonical.to_string().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn normalise(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut sorted = Map::new();
            for k in keys {
                sorted.insert(k.clone(), normalise(&map[k]));
            }
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        Value::String(s) => Value::String(s.trim().to_string()),
        other => other.clone(),
    }
}

/// Writes every request/answer pair of the wrapped backend to a cassette.
///
/// Put it outside [`Retry`](super::retry::Retry) so the cassette holds what
/// the loop saw (runtime/src/backend/mod.rs).
#[derive(Debug)]
pub struct Recording<B> {
    inner: B,
    path: PathBuf,
    file: Mutex<File>,
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> BackendError {
    BackendError::new(
        BackendErrorKind::Config,
        format!("cannot {what} the cassette {}: {e}", path.display()),
    )
}

impl<B: Backend> Recording<B> {
    /// Records `inner` into a new cassette at `path` (parent folders are
    /// created; an existing file is replaced). Writes the header now.
    pub fn new(inner: B, path: impl AsRef<Path>) -> Result<Self, BackendError> {
        let path = path.as_ref().to_path_buf();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| io_error(&path, "create", e))?;
        }
        let mut file = File::create(&path).map_err(|e| io_error(&path, "create", e))?;
        write_line(&mut file, &CassetteLine::header(&inner.info()))
            .map_err(|e| io_error(&path, "write", e))?;
        Ok(Recording {
            inner,
            path,
            file: Mutex::new(file),
        })
    }

    /// The cassette's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

/// [`write_line`] under `file`'s lock: one whole line, so concurrent runs
/// never interleave.
pub(crate) fn append_line(file: &Mutex<File>, line: &CassetteLine) -> std::io::Result<()> {
    match file.lock() {
        Ok(mut file) => write_line(&mut file, line),
        Err(_) => Err(std::io::Error::other("the file's lock is poisoned")),
    }
}

/// Writes `line` and a newline, and flushes: one whole line per call.
pub(crate) fn write_line(file: &mut File, line: &CassetteLine) -> std::io::Result<()> {
    let mut text = serde_json::to_string(line).map_err(std::io::Error::other)?;
    text.push('\n');
    file.write_all(text.as_bytes())?;
    file.flush()
}

impl<B: Backend> Wrapper for Recording<B> {
    type Inner = B;

    fn inner(&self) -> &B {
        &self.inner
    }

    /// Records the turn the stream adds up to: a streamed run's cassette is
    /// the one the same run writes unstreamed.
    async fn answer<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<DeltaSink<'a>>,
    ) -> Result<ModelTurn, BackendError> {
        // Armed while the answer is awaited: if this future is dropped
        // there (the run deadline cut the call), it writes the cut entry.
        let mut waiting = CutOnDrop {
            recording: self,
            request: Some(request),
        };
        let result = forward(&self.inner, request, sink).await;
        waiting.request = None;
        let outcome = match &result {
            Ok(turn) => RecordedOutcome::Turn(turn.clone()),
            Err(e) => RecordedOutcome::Error(e.into()),
        };
        if let Err(e) = self.append(request, outcome) {
            // A lost cassette line must not pass silently: fail the request.
            return Err(io_error(&self.path, "write", e));
        }
        result
    }
}

impl<B: Backend> Recording<B> {
    /// Appends the exchange of `request` with `outcome`.
    fn append(&self, request: &ModelRequest, outcome: RecordedOutcome) -> std::io::Result<()> {
        let line = CassetteLine::Exchange {
            key: request_key(request),
            request: request_json(request),
            outcome,
        };
        append_line(&self.file, &line)
    }
}

/// Writes a [`RecordedOutcome::Cut`] exchange for `request` when dropped
/// while still holding it: the recording future was dropped before the
/// answer came, which in a run means the driver's deadline cut the call.
/// A future dropped before its first poll never arms one: a request never
/// sent is not recorded.
struct CutOnDrop<'a, B: Backend> {
    recording: &'a Recording<B>,
    request: Option<&'a ModelRequest>,
}

impl<B: Backend> Drop for CutOnDrop<'_, B> {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        if let Err(e) = self.recording.append(request, RecordedOutcome::Cut) {
            // No request is left to fail: say so.
            tracing::warn!("{}", io_error(&self.recording.path, "write", e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Conversation;
    use std::sync::Arc;

    #[test]
    fn key_ignores_key_order_and_surrounding_blanks() {
        let a = ModelRequest {
            conversation: Conversation::new(Some("sys".into()), "hello").into(),
            tools: Vec::new().into(),
            tool_choice: ToolChoice::Auto,
            output: OutputFormat::JsonSchema {
                name: "answer".into(),
                schema: Arc::new(json!({"type": "object", "properties": {}})),
            },
            max_output_tokens: None,
        };
        let mut b = a.clone();
        b.conversation = Conversation::new(Some("sys \n".into()), "hello").into();
        b.output = OutputFormat::JsonSchema {
            name: "answer".into(),
            schema: Arc::new(json!({"properties": {}, "type": "object"})),
        };
        assert_eq!(request_key(&a), request_key(&b));
        let mut c = a.clone();
        Arc::make_mut(&mut c.conversation).push_user("more");
        assert_ne!(request_key(&a), request_key(&c));
        let mut d = a.clone();
        d.tool_choice = ToolChoice::Required;
        assert_ne!(request_key(&a), request_key(&d));
    }
}
