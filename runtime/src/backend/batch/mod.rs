//! Provider batch APIs: the same requests as the online backends, sent
//! many at a time for the provider to run within its completion window, at
//! its batch price.
//!
//! [`BatchService`] is what a round of batched turns needs from a provider:
//! the online codec's body for a request ([`encode`](BatchService::encode))
//! and its turn for an answer ([`decode`](BatchService::decode)), and three
//! calls — [`submit`](BatchService::submit) a batch of bodies, each under a
//! `custom_id`, [`poll`](BatchService::poll) it, and read its
//! [`results`](BatchService::results) once it has ended. The clients
//! ([`connect_batch`], feature `openai` / `anthropic`) speak:
//!
//! - **OpenAI** (Chat Completions and Responses): upload the bodies as a
//!   JSONL file (`POST /files`, purpose `batch`), create a batch on the
//!   endpoint (`POST /batches`, window `24h`), poll `GET /batches/{id}`,
//!   then read the output and error files (`GET /files/{id}/content`).
//! - **Anthropic** Message Batches: `POST /v1/messages/batches`, poll
//!   `GET /v1/messages/batches/{id}`, read
//!   `GET /v1/messages/batches/{id}/results` (the key is sent only below the
//!   configured base URL, never to a `results_url` elsewhere).
//!
//! A request the batch did not answer — expired, cancelled, refused, or
//! missing from the results — is that request's [`BackendError`] of kind
//! [`Batch`](BackendErrorKind::Batch) (or `Http` with the status the
//! provider gave it), carrying the provider's error type: one item's
//! failure, never a lost one. Answers are scrubbed of the key like online
//! answers. Rounds, the journal that makes a killed run resumable, and the
//! loop's side live in the judge (`tribunal_judge::internal::run::batch`).

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "openai")]
mod openai;

use super::{BackendError, BackendErrorKind, BackendInfo, ModelRequest, SamplingField};
use crate::conversation::ModelTurn;
use futures::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// One request of a batch: the body the online API would get, under an id
/// unique within the batch (`^[a-zA-Z0-9_-]{1,64}$`, what both providers take).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchEntry {
    /// The request's id within the batch.
    pub custom_id: String,
    /// The body, as [`BatchService::encode`] built it.
    pub body: Arc<Value>,
}

/// How many requests of a batch have ended, as the provider counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchCounts {
    /// Requests in the batch.
    pub total: u64,
    /// Requests answered.
    pub succeeded: u64,
    /// Requests that failed, expired or were cancelled.
    pub failed: u64,
}

/// A batch as last polled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchStatus {
    /// Whether the batch has ended (its results can be read): completed,
    /// failed, expired or cancelled on OpenAI; `ended` on Anthropic.
    pub ended: bool,
    /// The provider's own word for its state (`in_progress`, `expired`, …).
    pub state: String,
    /// The provider's counts.
    pub counts: BatchCounts,
}

/// The outcome of one request of an ended batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    /// The request's id.
    pub custom_id: String,
    /// The answer body (for [`BatchService::decode`]), or why there is none.
    pub answer: Result<Value, BackendError>,
}

/// The most a provider takes in one batch; a round with more requests is
/// sent as several batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Requests per batch.
    pub max_requests: usize,
    /// Bytes of request bodies per batch.
    pub max_bytes: usize,
}

/// A provider batch API, with the online codec of the same provider.
///
/// Dyn-compatible; implemented by the clients [`connect_batch`] builds and
/// by in-memory fakes in tests.
pub trait BatchService: Send + Sync {
    /// The name, model and output plan, as the online backend's.
    fn info(&self) -> BackendInfo<'_>;

    /// The body the online backend would send for `request`.
    fn encode(&self, request: &ModelRequest) -> Result<Value, BackendError>;

    /// The turn in an answer body of a batch.
    fn decode(&self, answer: Value) -> Result<ModelTurn, BackendError>;

    /// The provider's per-batch limits.
    fn limits(&self) -> BatchLimits;

    /// Creates one batch of `entries` and returns its id. Nothing is paid
    /// for until this succeeds.
    fn submit<'a>(
        &'a self,
        entries: &'a [BatchEntry],
    ) -> BoxFuture<'a, Result<String, BackendError>>;

    /// The batch's state now.
    fn poll<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<BatchStatus, BackendError>>;

    /// The outcome of each request of an ended batch, in no set order; a
    /// request the provider gave no outcome for is simply absent.
    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<BatchResult>, BackendError>>;

    /// The sampling fields the model has refused so far: [`encode`](Self::encode)
    /// leaves them out of every body from then on (as the online backend
    /// does, [`Backend::refused_sampling`](crate::Backend::refused_sampling)).
    fn refused_sampling(&self) -> Vec<SamplingField> {
        Vec::new()
    }

    /// Whether `error`, one request's outcome, refuses a sampling field its
    /// body carried (one not among `before`: [`refused_sampling`](Self::refused_sampling)
    /// read before that body was encoded): the field is then left out of
    /// every later body, and the request should be asked again.
    fn drops_refused(&self, error: &BackendError, before: &[SamplingField]) -> bool {
        let _ = (error, before);
        false
    }
}

/// A [`Batch`](BackendErrorKind::Batch) error of one request: the batch
/// did not run it (`provider_type` is the provider's reason, e.g.
/// `batch_expired`, `expired`, `canceled`).
pub fn request_error(
    provider: &str,
    provider_type: impl Into<String>,
    message: impl std::fmt::Display,
) -> BackendError {
    let provider_type = provider_type.into();
    let mut error = BackendError::new(
        BackendErrorKind::Batch,
        format!("{provider}: the batch did not answer this request ({provider_type}): {message}"),
    );
    error.provider_type = Some(provider_type);
    error
}

/// The batch client of `kind` for `model`: the key and base URL from `env`
/// as [`connect_with_env`](super::connect_with_env) reads them, the request
/// settings of `options` (its record, replay and cache settings do not
/// apply to batches and are refused). Errors (`Config`) as
/// `connect_with_env`'s, and for a provider whose feature is not built.
pub fn connect_batch(
    kind: super::BackendKind,
    model: &str,
    options: &super::BackendOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn BatchService>, BackendError> {
    if options.record.is_some() || options.replay.is_some() || options.cache.is_some() {
        return Err(BackendError::new(
            BackendErrorKind::Config,
            "batches are not recorded, replayed or cached: drop --record, --replay and --cache with --batch",
        ));
    }
    let config = super::ProviderConfig::from_env(kind, model, options, env)?;
    match kind {
        #[cfg(feature = "openai")]
        super::BackendKind::OpenAiChat => Ok(Arc::new(openai::OpenAiBatches::<
            super::openai_chat::OpenAiChatCodec,
        >::new(config)?)),
        #[cfg(feature = "openai")]
        super::BackendKind::OpenAiResponses => Ok(Arc::new(openai::OpenAiBatches::<
            super::openai_responses::OpenAiResponsesCodec,
        >::new(config)?)),
        #[cfg(feature = "anthropic")]
        super::BackendKind::Anthropic => Ok(Arc::new(anthropic::AnthropicBatches::new(config)?)),
        #[allow(unreachable_patterns)]
        other => Err({
            let _ = config;
            BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "the {other} backend is not built in: enable the `{}` feature",
                    other.feature()
                ),
            )
        }),
    }
}

/// Reads JSON Lines, skipping blank lines; a line that is not JSON is a
/// `Protocol` error naming `what` and the line number.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn json_lines(provider: &str, what: &str, bytes: &[u8]) -> Result<Vec<Value>, BackendError> {
    let mut values = Vec::new();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value = serde_json::from_slice(line).map_err(|e| {
            BackendError::new(
                BackendErrorKind::Protocol,
                format!("{provider}: line {} of the {what} is not JSON: {e}", n + 1),
            )
        })?;
        values.push(value);
    }
    Ok(values)
}

/// A non-negative count at `key` of `value`, 0 when absent.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The largest batch results file read into memory (1 GiB): a provider
/// takes batch inputs of up to about 200 MB.
#[cfg(any(feature = "openai", feature = "anthropic"))]
const MAX_RESULTS_BYTES: usize = 1024 * 1024 * 1024;

/// `id` when it is safe as one segment of a URL path (letters, digits,
/// `_`, `-`, `.`), else a `Protocol` error.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn path_id<'a>(provider: &str, id: &'a str) -> Result<&'a str, BackendError> {
    let safe = !id.is_empty()
        && id.len() <= 200
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && id != "."
        && id != "..";
    if safe {
        Ok(id)
    } else {
        Err(BackendError::new(
            BackendErrorKind::Protocol,
            format!("{provider}: the id {id:?} is not a plain identifier"),
        ))
    }
}

/// A provider message cut to what an error keeps.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn clip(text: &str) -> &str {
    crate::text::clip(text, crate::text::Limit::Chars(300))
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The `id` of an object the provider created, checked to be safe in a
/// URL path.
fn id_of(provider: &str, what: &str, object: &Value) -> Result<String, BackendError> {
    let id = object.get("id").and_then(Value::as_str).ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::Protocol,
            format!("{provider}: the {what} was created without an id"),
        )
    })?;
    path_id(provider, id).map(str::to_string)
}
