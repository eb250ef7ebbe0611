//! The [`Backend`] trait (one request in, one assistant turn out), the request
//! type, and the backends and wrappers that implement it.
//!
//! The live providers are one [`HttpBackend`] over a sans-I/O [`Codec`] per
//! API (`OpenAiChatCodec`, `OpenAiResponsesCodec`, `AnthropicCodec`): the
//! codec turns a request into a body and an answer into a turn, the backend
//! sends it. [`connect`] builds a provider's backend from a [`BackendKind`]
//! and [`BackendOptions`] (the [`BackendSettings`] and where the model is).
//!
//! Wrappers compose like tower layers: `Recording::new(Retry::new(OpenAiChat::new(cfg)?, 2), path)?`
//! — the outermost wrapper sees the request first; it answers
//! [`Backend::info`] with its inner backend's.
//!
//! # Wrapper order
//!
//! Like tower's `ServiceBuilder`, the first wrapper listed sees the request
//! first. [`connect`] builds:
//!
//! ```text
//! Recording          (only with `record`)  writes what the loop saw: one line per request
//!   └─ Cached        (only with `cache`)   answers requests asked before from the cache file
//!        └─ Retry    (max_retries, default 2) retries 408/409/429/5xx/529 and connect failures
//!             └─ provider (OpenAiChat | OpenAiResponses | Anthropic): one HTTP request, no retries
//! ```
//!
//! The cache sits inside `Recording` (a cassette of a cached run is complete)
//! and outside `Retry` (an answer is cached once, after its retries).
//!
//! Recording sits outside `Retry` so a cassette holds one entry per loop
//! request (the final answer or error), never the failed attempts; replaying
//! it therefore needs no retry layer and never waits. With `replay` set,
//! [`connect`] returns a bare [`Replay`] and reads no key at all.
//!
//! The run deadline is not a wrapper: the driver bounds every `complete` call
//! with it, which also cancels a retry wait.
//!
//! The files import one way (checked by the root package's `module_graph`
//! test): the vocabulary (`kind`, `setting_spec`, `settings`, `options`,
//! `provider`, `timeouts`, `delta`) at the bottom, the codecs (`stream`,
//! `codec`, `openai_chat`, `openai_responses`, `anthropic`) above it, the
//! HTTP transport (`http`, [`batch`]) above them, the wrappers ([`Retry`],
//! [`Recording`], [`Cached`]: each a `Wrapper`) beside them knowing only
//! the trait, and [`connect`] (`config`) at the top. The trait, the request
//! and the error are this module's own.

#[cfg(feature = "anthropic")]
mod anthropic;
pub mod batch;
mod cache;
mod codec;
mod config;
mod delta;
#[cfg(feature = "http")]
mod http;
mod kind;
#[cfg(feature = "openai")]
mod openai_chat;
#[cfg(feature = "openai")]
mod openai_responses;
#[cfg(feature = "openai")]
mod openai_wire;
mod options;
#[cfg(feature = "anthropic")]
pub mod prompt_cache;
mod provider;
mod record;
mod refused_sampling;
mod replay;
mod retry;
#[cfg(feature = "http")]
mod runaway;
mod scripted;
mod setting_spec;
mod settings;
mod stream;
mod timeouts;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod wire;

#[cfg(feature = "anthropic")]
pub use anthropic::AnthropicCodec;
pub use cache::{CacheCounts, Cached, counted};
pub use codec::Codec;
pub use config::{connect, connect_with_env};
pub use delta::{Delta, DeltaSink};
#[cfg(feature = "anthropic")]
pub use http::Anthropic;
#[cfg(feature = "http")]
pub use http::HttpBackend;
#[cfg(feature = "openai")]
pub use http::{OpenAiChat, OpenAiResponses};
pub use kind::BackendKind;
pub use kind::{Auth, Provider};
#[cfg(feature = "openai")]
pub use openai_chat::OpenAiChatCodec;
#[cfg(feature = "openai")]
pub use openai_responses::OpenAiResponsesCodec;
pub use options::BackendOptions;
pub use provider::{ProviderConfig, base_url_from_env, is_hosted, resolve_plan};
pub use record::{RecordedError, Recording};
pub use refused_sampling::SamplingField;
pub use replay::Replay;
pub use retry::{Retry, is_retryable};
pub use scripted::{ScriptStep, ScriptToolCall, ScriptTurn, ScriptedBackend};
pub use setting_spec::{
    FlagValue, Hashed, RESERVED_BODY_FIELDS, SettingDefault, SettingGroup, SettingKind,
    SettingProblem, SettingSpec,
};
pub use settings::{BackendSettings, DEFAULT_MAX_RETRIES};
pub use stream::{Flow, NoStream, StreamFold};
pub use timeouts::{
    DEFAULT_CONNECT_SECS, DEFAULT_FIRST_BYTE_SECS, DEFAULT_PREFLIGHT_SECS,
    DEFAULT_STREAM_IDLE_SECS, MAX_TIMEOUT_SECS, Stage, Timeouts,
};

use crate::conversation::ToolSpec;
use crate::conversation::{Conversation, ModelTurn, Usage};
pub use crate::output::SchemaTarget;
use crate::output::{OutputPlan, ToolChoice};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The final-answer format a request asks for.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum OutputFormat {
    /// Free text (follow-up questions).
    #[default]
    Text,
    /// A JSON answer conforming to `schema`, already compiled for the
    /// backend's [`SchemaTarget`]. A backend in native mode sends it as the
    /// provider's structured-output format; in prompt mode it writes it into
    /// the prompt.
    JsonSchema {
        /// Format name, sanitised to `^[a-zA-Z0-9_-]{1,64}$`.
        name: String,
        /// The wire schema.
        schema: Arc<Value>,
    },
}

/// One request to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// System prompt and messages so far. Shared: the loop hands the same
    /// conversation to every request of a turn (and to a backend that keeps
    /// requests, like the scripted one's log) without copying it, and copies
    /// it only when it grows while a request still holds it.
    pub conversation: Arc<Conversation>,
    /// Tools offered on this request (empty: none). Shared, because every
    /// request of a run offers the same tools. A repair or finalize request
    /// offers none, or only the answer tool under the tool strategy.
    pub tools: Arc<[ToolSpec]>,
    /// Whether the model must call one of `tools`.
    pub tool_choice: ToolChoice,
    /// The structured-output field to send, if any.
    pub output: OutputFormat,
    /// Per-request output-token ceiling, if any.
    pub max_output_tokens: Option<u32>,
}

/// What kind of failure a backend had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BackendErrorKind {
    /// The provider answered with an HTTP error status.
    Http,
    /// The connection failed or broke.
    Transport,
    /// The provider's body could not be understood.
    Protocol,
    /// Required configuration (e.g. an API key variable) is missing.
    Config,
    /// A scripted or replayed backend had no answer for this request.
    Script,
    /// The provider reported a refusal outside the normal turn shape.
    Refused,
    /// A provider batch did not answer the request: it expired, was
    /// cancelled, failed, or gave no result for it
    /// ([`batch`] module).
    Batch,
    /// A replayed request that the run deadline cut when it was recorded
    /// (a cassette's `cut` entry, [`Recording`]): the driver ends the run as
    /// `deadline_exceeded`, as the recorded run ended, never as a backend
    /// error.
    DeadlineCut,
}

impl BackendErrorKind {
    /// The snake_case name (`http`, `transport`, …), as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendErrorKind::Http => "http",
            BackendErrorKind::Transport => "transport",
            BackendErrorKind::Protocol => "protocol",
            BackendErrorKind::Config => "config",
            BackendErrorKind::Script => "script",
            BackendErrorKind::Refused => "refused",
            BackendErrorKind::Batch => "batch",
            BackendErrorKind::DeadlineCut => "deadline_cut",
        }
    }
}

/// A backend failure. Never carries a request body or a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind:?} error{}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
pub struct BackendError {
    /// The kind of failure.
    pub kind: BackendErrorKind,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// The provider's error type (e.g. `rate_limit_error`), when given.
    pub provider_type: Option<String>,
    /// A short description, free of secrets and request content.
    pub message: String,
    /// How long the provider asked to wait before a retry (`Retry-After`),
    /// when it said so. Read by the retry wrapper.
    pub retry_after: Option<std::time::Duration>,
    /// Where in the request it failed, when that is known.
    pub stage: Option<Stage>,
    /// What a person reads first, written by tribunal from what it saw —
    /// the stage, the HTTP status, the URL (without credentials or query),
    /// what the body was (`an HTML page`) — never provider or model text,
    /// never a key: safe to store in a result row
    /// ([`BackendFailure`](crate::report::BackendFailure)).
    pub detail: Option<String>,
    /// Tokens the provider reported before the request failed (a stream
    /// that broke off after its usage arrived; with retries, every failed
    /// attempt's): spent, so counted. Boxed: errors travel in `Result`s
    /// everywhere, and most carry none.
    pub spent: Box<Usage>,
    /// The sampling field the provider refused, when the error is such a
    /// refusal (read by the live backend, which then sends the request
    /// without it).
    pub(crate) refused_sampling: Option<SamplingField>,
}

impl BackendError {
    /// A backend error of `kind` with a message.
    pub fn new(kind: BackendErrorKind, message: impl Into<String>) -> Self {
        BackendError {
            kind,
            status: None,
            provider_type: None,
            message: message.into(),
            retry_after: None,
            stage: None,
            detail: None,
            spent: Box::default(),
            refused_sampling: None,
        }
    }

    /// This error, said to have happened at `stage`.
    pub fn at(mut self, stage: Stage) -> Self {
        self.stage = Some(stage);
        self
    }

    /// This error with a storable `detail` (see [`BackendError::detail`]).
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// What a backend is, as the loop, reports and cassettes see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackendInfo<'a> {
    /// A short name for reports (`mock`, `openai-chat`, …).
    pub name: &'a str,
    /// The model name sent to the provider.
    pub model: &'a str,
    /// How this backend takes final answers: the strategy and the schema
    /// dialect, resolved from the user's options when it was built.
    pub plan: OutputPlan,
}

/// A model provider: one request in, one assistant turn out.
///
/// Dyn-compatible so the CLI can pick a backend at runtime. Budgets and the
/// run deadline are not the backend's business; the loop enforces them.
///
/// An implementation writes two methods: [`info`](Backend::info) and
/// [`complete`](Backend::complete). A wrapper (retries, recording, …)
/// implements the crate's `Wrapper` instead, and is a backend through it.
pub trait Backend: Send + Sync {
    /// Its name, model and output plan.
    fn info(&self) -> BackendInfo<'_>;

    /// Sends one request and returns the assistant turn.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>>;

    /// Like [`complete`](Backend::complete), and sends the answer's pieces
    /// to `sink` as they arrive. Returns the same turn `complete` returns
    /// for the same answer: the deltas are a preview.
    ///
    /// The default calls `complete` and sends the whole turn at once
    /// (sent whole): what scripted and replayed backends do. A
    /// wrapper serves it with the one `answer` it writes for both.
    fn complete_streaming<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            let turn = self.complete(request).await?;
            delta::send_whole(&turn, sink);
            Ok(turn)
        })
    }

    /// Checks, before any model request, that the provider can be reached,
    /// is an API and takes the key — without asking the model anything (the
    /// HTTP backends: `GET /models`, which costs no tokens, within
    /// [`Timeouts::preflight`]). Any JSON answer passes, even an error (a
    /// server that lists no models there); no server, no answer in time, a
    /// refused key or a body that is no API's (an HTML page, plain text)
    /// fails, at [`Stage::Preflight`]. Default: nothing to check (scripted
    /// and replayed backends). A wrapper passes it to its inner backend.
    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// The sampling settings its model refused and requests now leave out
    /// (a live backend, see [`SamplingField`]); none by default.
    fn refused_sampling(&self) -> Vec<SamplingField> {
        Vec::new()
    }

    /// [`BackendInfo::name`].
    fn name(&self) -> &str {
        self.info().name
    }

    /// [`BackendInfo::model`].
    fn model(&self) -> &str {
        self.info().model
    }

    /// [`BackendInfo::plan`].
    fn output_plan(&self) -> OutputPlan {
        self.info().plan
    }
}

/// `backend.complete(request)`, or `complete_streaming` when a `sink` is
/// given: how a wrapper serves both methods with one body.
pub(crate) fn forward<'a, B: Backend + ?Sized>(
    backend: &'a B,
    request: &'a ModelRequest,
    sink: Option<DeltaSink<'a>>,
) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
    match sink {
        Some(sink) => backend.complete_streaming(request, sink),
        None => backend.complete(request),
    }
}

/// A backend around another that changes how a request is answered
/// (retries, a recording, a cache): it names its [`inner`](Wrapper::inner)
/// backend and writes one [`answer`](Wrapper::answer) (an `async fn`), and
/// is a [`Backend`] through the one impl below, which passes
/// [`info`](Backend::info) and [`preflight`](Backend::preflight) to the
/// inner backend and serves both [`complete`](Backend::complete) and
/// [`complete_streaming`](Backend::complete_streaming) with `answer`, boxed
/// there once.
///
/// So a wrapper has no backend method of its own to forget: a method added
/// to [`Backend`] is added to that impl, once, for every layer — as tower's
/// `Layer`s compose `Service`s — and to the shared `Arc`'s forwarding below
/// (`config.rs`'s layer test runs through one).
pub(crate) trait Wrapper: Send + Sync {
    /// The wrapped backend.
    type Inner: Backend + ?Sized;

    /// The wrapped backend, which answers `info` and `preflight`.
    fn inner(&self) -> &Self::Inner;

    /// Answers `request`, sending the answer's pieces to `sink` when there
    /// is one (`complete_streaming`) — usually around
    /// [`forward`]`(self.inner(), request, sink)`.
    fn answer<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<DeltaSink<'a>>,
    ) -> impl Future<Output = Result<ModelTurn, BackendError>> + Send + 'a;
}

impl<W: Wrapper> Backend for W {
    fn info(&self) -> BackendInfo<'_> {
        self.inner().info()
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(self.answer(request, None))
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(self.answer(request, Some(sink)))
    }

    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        self.inner().preflight()
    }

    fn refused_sampling(&self) -> Vec<SamplingField> {
        self.inner().refused_sampling()
    }
}

/// A shared backend is the backend it points to: each method is its own
/// (no second box around its futures).
impl<B: Backend + ?Sized> Backend for Arc<B> {
    fn info(&self) -> BackendInfo<'_> {
        (**self).info()
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        (**self).complete(request)
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        (**self).complete_streaming(request, sink)
    }

    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        (**self).preflight()
    }

    fn refused_sampling(&self) -> Vec<SamplingField> {
        (**self).refused_sampling()
    }
}
