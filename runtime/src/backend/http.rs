//! [`HttpBackend`]: the one live backend, speaking a provider API through its
//! [`Codec`], and the HTTP leg it rests on: one JSON POST, no retries, and
//! the mapping of statuses, provider error bodies and `Retry-After` headers
//! into [`BackendError`]s that never carry a request body or a key.

use super::codec::{Codec, Provider};
use super::delta::{Delta, DeltaSink, send_whole};
use super::provider::ProviderConfig;
use super::refused_sampling::RefusedSampling;
use super::runaway::RunawayGuard;
use super::stream::{Flow, StreamFold};
use super::timeouts::{Stage, Timeouts};
use super::{Backend, BackendError, BackendErrorKind, BackendInfo, ModelRequest};
use crate::conversation::{ModelTurn, Usage};
use eventsource_stream::{EventStreamError, Eventsource};
use futures::StreamExt;
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::marker::PhantomData;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// Longest provider error message kept in a [`BackendError`], in characters.
const MAX_ERROR_MESSAGE_CHARS: usize = 300;
/// The largest response body read into memory (32 MiB); a larger one is a
/// protocol error instead of unbounded memory use.
const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;
/// The largest single event of a streamed answer (4 MiB). Larger is a
/// protocol error: the SSE parser re-reads an unfinished line as each chunk
/// arrives, so one endless line would cost time quadratic in its length.
const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;
/// The largest provider object (a batch, an uploaded file's record) read
/// by [`Endpoint::object`] (1 MiB).
const MAX_OBJECT_BYTES: usize = 1024 * 1024;
/// Keys shorter than this are not scrubbed from provider text.
const MIN_SCRUBBED_KEY_LEN: usize = 4;
/// What a key in provider text is replaced with.
const REDACTED: &str = "[redacted]";

#[doc(hidden)] // connect() builds it; no promise
/// A live provider backend: `C` encodes each request and decodes each
/// answer, this type sends it — one JSON POST to the provider's endpoint
/// below [`ProviderConfig::base_url`], the key in the provider's auth
/// header, at most 32 MiB of the answer read, error statuses mapped to
/// `Http` errors with the provider's error type and `Retry-After`, and the
/// key scrubbed from every string of the answer before `C` sees it.
///
/// Sends no retries of its own; wrap it in [`Retry`](super::retry::Retry)
/// (as [`connect`](super::config::connect) does). The provider types are
/// aliases of it: [`OpenAiChat`], [`OpenAiResponses`], [`Anthropic`]
/// (each built with its provider's feature).
pub struct HttpBackend<C> {
    config: ProviderConfig,
    endpoint: Endpoint,
    /// The sampling fields the model refused: left out from then on.
    refused: RefusedSampling,
    codec: PhantomData<fn() -> C>,
}

impl<C: Codec> HttpBackend<C> {
    /// A backend for `config`. Errors (`Config`): the key cannot travel in a
    /// header, or the HTTP client cannot be built.
    pub fn new(config: ProviderConfig) -> Result<Self, BackendError> {
        let endpoint = Endpoint::of(&C::PROVIDER, &config)?;
        Ok(HttpBackend {
            config,
            endpoint,
            refused: RefusedSampling::default(),
            codec: PhantomData,
        })
    }

    /// The JSON body this backend sends for `request` (for inspection and
    /// tests): [`Codec::encode`] with this backend's config.
    pub fn request_body(&self, request: &ModelRequest) -> Result<Value, BackendError> {
        let mut body = C::encode(request, &self.config)?;
        self.refused.strip(&mut body);
        Ok(body)
    }

    /// One streamed attempt of [`complete_streaming`](Backend::complete_streaming).
    async fn stream_once(
        &self,
        request: &ModelRequest,
        sink: DeltaSink<'_>,
    ) -> Result<ModelTurn, BackendError> {
        let mut body = self.request_body(request)?;
        let guard = self.config.settings.cut_runaway().then(RunawayGuard::new);
        let answer = if C::stream_body(&mut body) {
            match self
                .endpoint
                .post_stream::<C::Stream>(&body, sink, guard)
                .await
            {
                Ok(answer) => answer,
                Err((mut error, partial)) => {
                    *error.spent = partial.spent::<C>(&error, &body);
                    return Err(error);
                }
            }
        } else {
            Answer::Whole(self.endpoint.post_json(&body).await?)
        };
        match answer {
            Answer::Streamed(answer) => C::decode(answer),
            Answer::Whole(answer) => {
                let turn = C::decode(answer)?;
                send_whole(&turn, sink);
                Ok(turn)
            }
            Answer::RanAway(guard) => {
                let mut turn = guard.into_turn(input_estimate(&body));
                turn.text = self.endpoint.scrub(&turn.text);
                Ok(turn)
            }
        }
    }

    /// Whether `error` refuses a sampling field the request carried (it was
    /// not among `before`, the refused fields when its body was built): the
    /// field is then left out of this and every later request.
    fn drops_refused(&self, error: &BackendError, before: &[super::SamplingField]) -> bool {
        self.refused.drops(
            error,
            before,
            &self.config.settings,
            (C::PROVIDER.name, &self.config.model),
        )
    }
}

#[cfg(feature = "openai")]
/// The OpenAI Chat Completions backend: [`HttpBackend`] speaking
/// [`OpenAiChatCodec`](super::openai_chat::OpenAiChatCodec). Sends no
/// retries of its own; wrap it in [`Retry`](super::retry::Retry) (as
/// [`connect`](super::config::connect) does).
pub type OpenAiChat = HttpBackend<super::openai_chat::OpenAiChatCodec>;

#[cfg(feature = "openai")]
/// The OpenAI Responses backend: [`HttpBackend`] speaking
/// [`OpenAiResponsesCodec`](super::openai_responses::OpenAiResponsesCodec). Sends no
/// retries of its own; wrap it in [`Retry`](super::retry::Retry) (as
/// [`connect`](super::config::connect) does).
pub type OpenAiResponses = HttpBackend<super::openai_responses::OpenAiResponsesCodec>;

#[cfg(feature = "anthropic")]
/// The Anthropic Messages backend: [`HttpBackend`] speaking
/// [`AnthropicCodec`](super::anthropic::AnthropicCodec). Sends no
/// retries of its own; wrap it in [`Retry`](super::retry::Retry) (as
/// [`connect`](super::config::connect) does).
pub type Anthropic = HttpBackend<super::anthropic::AnthropicCodec>;

impl<C: Codec> std::fmt::Debug for HttpBackend<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The config's Debug hides the key, the endpoint's the headers.
        f.debug_struct("HttpBackend")
            .field("provider", &C::PROVIDER.name)
            .field("config", &self.config)
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl<C: Codec> Backend for HttpBackend<C> {
    fn info(&self) -> BackendInfo<'_> {
        self.config.info(C::PROVIDER.name)
    }

    fn refused_sampling(&self) -> Vec<super::SamplingField> {
        self.refused.fields()
    }

    /// With `cut_runaway` on (the default) the answer is
    /// streamed, unseen, so that a turn that runs away is cut
    /// ([`complete_streaming`](Self::complete_streaming)).
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        if self.config.settings.cut_runaway() {
            return self.complete_streaming(request, &ignore_delta);
        }
        Box::pin(async move {
            loop {
                let before = self.refused.fields();
                let body = self.request_body(request)?;
                match self.endpoint.post_json(&body).await {
                    Err(error) if self.drops_refused(&error, &before) => continue,
                    answer => return C::decode(answer?),
                }
            }
        })
    }

    /// Asks for a streamed answer ([`Codec::stream_body`]) and reads the
    /// provider's server-sent events with `C::Stream`; the folded body goes
    /// through [`Codec::decode`] like an unstreamed one, so the turn (usage,
    /// stop reason, truncation) is the same. A codec that does not stream,
    /// or a server that answers whole, gives the whole turn as one delta.
    ///
    /// With `cut_runaway` on, a runaway guard watches
    /// the deltas: a turn that runs away ends there, the connection closed
    /// (which stops the server's decoding), as the guard's
    /// `into_turn` — stop reason `Runaway`, its
    /// usage estimated (the request's input at four bytes of JSON a token).
    fn complete_streaming<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            loop {
                let before = self.refused.fields();
                match self.stream_once(request, sink).await {
                    Err(error) if self.drops_refused(&error, &before) => continue,
                    turn => return turn,
                }
            }
        })
    }

    /// `GET {base URL}/models` with the key (`/v1/models` on Anthropic),
    /// within [`Timeouts::preflight`]. A JSON answer passes whatever its
    /// status — a real API server without that path answers a JSON error —
    /// but a refused key (401, 403), and so does an empty body. Errors,
    /// each at [`Stage::Preflight`]: the server cannot be reached or does
    /// not answer in time (`Transport`), it refused the key (`Http`), or
    /// what answered is no API at all — an HTML page, plain text
    /// (`Protocol`, "not an OpenAI-compatible API at URL").
    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        Box::pin(async move {
            let endpoint = &self.endpoint;
            let url = endpoint.url(C::PROVIDER.models_path);
            let shown = shown_url(&url);
            let probe = endpoint.probe(&url);
            let result = match within_for(endpoint.timeouts.preflight, probe).await {
                None => Err(endpoint.timed_out(Stage::Preflight, &shown, None)),
                Some(Err(e)) => Err(e),
                Some(Ok((status, _, body))) if matches!(status, 401 | 403) => {
                    Err(endpoint.http_error(status, &body, &shown))
                }
                Some(Ok((status, content_type, body))) => {
                    // JSON is an API's answer; an empty body tells nothing
                    // either way (some API servers answer an unknown path
                    // with an empty 404), so it passes too.
                    let empty = body.trim_ascii().is_empty();
                    if empty || serde_json::from_slice::<Value>(&body).is_ok() {
                        Ok(())
                    } else {
                        let what = body_kind(content_type.as_deref(), &body);
                        let hint = match status {
                            404 if C::PROVIDER.models_path == "/models"
                                && !endpoint.base.ends_with("/v1") =>
                            {
                                " (does the base URL need /v1 at its end?)"
                            }
                            _ => "",
                        };
                        let detail = format!(
                            "not {} at {}: GET {shown} answered HTTP {status} with {what}{hint}",
                            C::PROVIDER.api,
                            shown_url(&endpoint.base)
                        );
                        let mut e = BackendError::new(
                            BackendErrorKind::Protocol,
                            endpoint.scrub(&format!("{}: {detail}", endpoint.backend)),
                        );
                        e.status = Some(status);
                        Err(e.with_detail(endpoint.scrub(&detail)))
                    }
                }
            };
            result.map_err(|e| e.at(Stage::Preflight))
        })
    }
}

/// A request body's input tokens, estimated at four bytes of JSON a token
/// (for a turn whose provider never said what it counted).
fn input_estimate(body: &Value) -> u64 {
    body.to_string().len().div_ceil(4) as u64
}

/// What a streamed answer that failed part-way had cost: the usage its
/// events reported, in the provider's form, and the pieces it sent.
#[derive(Debug, Default)]
struct Partial {
    usage: Option<Value>,
    pieces: u64,
}

impl Partial {
    /// The tokens `error`'s attempt spent: what the provider reported
    /// (Anthropic reports the input in `message_start`); else, when the
    /// answer had begun to arrive before it broke off or stalled, an
    /// estimate as for a runaway turn — the request's input, one output
    /// token a piece — since a provider bills what it read and wrote
    /// (the OpenAI APIs report usage only in their last event); else none.
    fn spent<C: Codec>(self, error: &BackendError, body: &Value) -> Usage {
        match self.usage {
            Some(usage) => C::usage(usage),
            None if matches!(error.stage, Some(Stage::Stream | Stage::StreamIdle)) => {
                Usage::new(input_estimate(body), self.pieces)
            }
            None => Usage::default(),
        }
    }
}

/// The sink of a call that streams only to watch for a runaway turn.
fn ignore_delta(_: Delta) {}

/// Why the byte stream under an event stream stopped early.
enum StreamFail {
    /// It broke off or timed out (the error says which, and where).
    Failed(BackendError),
    TooLarge,
    EventTooLarge,
}

impl std::fmt::Display for StreamFail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamFail::Failed(e) => f.write_str(&e.message),
            StreamFail::TooLarge => f.write_str("the answer is too large"),
            StreamFail::EventTooLarge => f.write_str("a stream event is too large"),
        }
    }
}

/// When the next byte of an answer is due: the first within
/// [`Timeouts::first_byte`] of sending the request, each later one within
/// [`Timeouts::stream_idle`] of the one before.
///
/// A wait too long to add to the clock ([`Timeouts::unbounded`]) is no
/// timeout at all.
#[derive(Debug, Clone, Copy)]
struct Due {
    first_by: Option<Instant>,
    started: bool,
}

impl Due {
    fn from_now(timeouts: &Timeouts) -> Due {
        Due {
            first_by: Instant::now().checked_add(timeouts.first_byte),
            started: false,
        }
    }

    /// The instant the next byte is due by (`None`: no timeout), and the
    /// stage that waits for it.
    fn next(&self, timeouts: &Timeouts) -> (Option<Instant>, Stage) {
        match self.started {
            false => (self.first_by, Stage::FirstByte),
            true => (
                Instant::now().checked_add(timeouts.stream_idle),
                Stage::StreamIdle,
            ),
        }
    }
}

/// `future`'s output, or `None` when `by` comes first. Without a `by` no
/// timer is set at all (so a paused test clock never jumps to one).
async fn within<F: std::future::Future>(by: Option<Instant>, future: F) -> Option<F::Output> {
    match by {
        Some(by) => tokio::time::timeout_at(by, future).await.ok(),
        None => Some(future.await),
    }
}

/// `future` within `wait` from now, as [`within`].
async fn within_for<F: std::future::Future>(wait: Duration, future: F) -> Option<F::Output> {
    within(Instant::now().checked_add(wait), future).await
}

/// A response whose success status arrived: its status, the response and
/// when its next byte is due.
pub(crate) struct Reply {
    status: u16,
    response: reqwest::Response,
    due: Due,
}

/// A success answer to a streaming request.
enum Answer {
    /// Folded from the event stream (its deltas already sent).
    Streamed(Value),
    /// A whole JSON body: the server did not stream.
    Whole(Value),
    /// The turn ran away and reading stopped: the guard that saw it.
    RanAway(RunawayGuard),
}

/// Holds back, per delta channel (the text, each tool call's arguments), the
/// end of the streamed text that could be the start of the key, so that a
/// key split across two deltas is replaced like one inside a delta. What is
/// held back goes out with the next delta of its channel, or at
/// [`flush`](Self::flush).
struct DeltaScrubber<'s> {
    secret: Option<&'s str>,
    /// (tool call index or `None` for text, the call's name, held text).
    held: Vec<(Option<usize>, String, String)>,
}

impl<'s> DeltaScrubber<'s> {
    fn new(secret: Option<&'s str>) -> Self {
        DeltaScrubber {
            secret,
            held: Vec::new(),
        }
    }

    fn push(&mut self, delta: Delta, sink: DeltaSink<'_>) {
        let Some(secret) = self.secret else {
            sink(delta);
            return;
        };
        let (channel, name, piece) = match delta {
            Delta::Text(text) => (None, String::new(), text),
            Delta::ToolArguments {
                index,
                name,
                fragment,
            } => (Some(index), name, fragment),
            other => {
                sink(other);
                return;
            }
        };
        let slot = match self.held.iter().position(|(c, ..)| *c == channel) {
            Some(i) => i,
            None => {
                self.held.push((channel, String::new(), String::new()));
                self.held.len() - 1
            }
        };
        let (_, held_name, held) = &mut self.held[slot];
        *held_name = name;
        held.push_str(&piece);
        if held.contains(secret) {
            *held = held.replace(secret, REDACTED);
        }
        // The longest end of `held` that begins the key stays behind (the
        // key is header-safe ASCII, so the cut is on a char boundary).
        let keep = (1..secret.len())
            .rev()
            .find(|&k| held.ends_with(&secret[..k]))
            .unwrap_or(0);
        let out: String = held.drain(..held.len() - keep).collect();
        if !out.is_empty() {
            sink(channel_delta(channel, held_name, out));
        }
    }

    fn flush(&mut self, sink: DeltaSink<'_>) {
        for (channel, name, held) in self.held.drain(..) {
            if !held.is_empty() {
                sink(channel_delta(channel, &name, held));
            }
        }
    }
}

fn channel_delta(channel: Option<usize>, name: &str, text: String) -> Delta {
    match channel {
        None => Delta::Text(text),
        Some(index) => Delta::ToolArguments {
            index,
            name: name.to_string(),
            fragment: text,
        },
    }
}

/// One provider endpoint: a URL, the headers every request carries (auth
/// headers marked sensitive) and the secret to scrub from error text. The
/// batch clients (`super::batch`) reach the provider's other paths below
/// the same base URL through it, with the same error mapping and scrubbing.
#[derive(Clone)]
pub(crate) struct Endpoint {
    client: reqwest::Client,
    /// The base URL, without a trailing slash.
    base: String,
    url: String,
    headers: HeaderMap,
    secret: String,
    backend: &'static str,
    timeouts: Timeouts,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the headers: they hold the key.
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// The endpoint of `provider` for `config`: its base URL, key and
    /// timeouts ([`new`](Self::new)).
    pub(crate) fn of(provider: &Provider, config: &ProviderConfig) -> Result<Self, BackendError> {
        Endpoint::new(provider, &config.base_url, &config.api_key, config.timeouts)
    }

    /// The endpoint of `provider` below `base_url`. The key travels in the
    /// header `provider.auth` names, marked sensitive so no debug output of
    /// reqwest shows it.
    pub(crate) fn new(
        provider: &Provider,
        base_url: &str,
        key: &str,
        timeouts: Timeouts,
    ) -> Result<Self, BackendError> {
        let backend = provider.name;
        let config = |message: String| BackendError::new(BackendErrorKind::Config, message);
        let header_name = |name: &str| {
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                config(format!(
                    "the {backend} header name `{name}` is not a valid header name"
                ))
            })
        };
        // `what` names the value in the error, never the value itself.
        let header_value = |value: &str, what: String| {
            HeaderValue::from_str(value)
                .map_err(|_| config(format!("{what} holds characters not allowed in a header")))
        };
        let mut headers = HeaderMap::new();
        // No key (a local server off the hosted hosts, see
        // `ProviderConfig::from_env`): no auth header at all.
        if !key.is_empty() {
            let (name, value) = provider.auth.header(key);
            let mut value = header_value(&value, format!("the {backend} API key"))?;
            value.set_sensitive(true);
            headers.insert(header_name(name)?, value);
        }
        for (name, value) in provider.headers {
            let value = header_value(value, format!("the {backend} header `{name}`"))?;
            headers.insert(header_name(name)?, value);
        }
        // Only the connect timeout lives in the client: the others are per
        // stage of a request (`Due`, `preflight`), and the run deadline
        // bounds every call (the driver). No retries: plain reqwest has
        // none, and the `Retry` wrapper owns the count.
        let mut client = reqwest::Client::builder();
        if Instant::now().checked_add(timeouts.connect).is_some() {
            client = client.connect_timeout(timeouts.connect);
        }
        let client = client
            .build()
            .map_err(|e| config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Endpoint {
            client,
            base: base_url.trim_end_matches('/').to_string(),
            url: join_url(base_url, provider.path),
            headers,
            secret: key.to_string(),
            backend,
            timeouts,
        })
    }

    /// POSTs `body` as JSON and returns the parsed JSON answer.
    ///
    /// Errors: a connection that fails or a first byte that does not come in
    /// time is `Transport` without a status; an error status is `Http` with
    /// the provider's error type and `Retry-After`; a body that breaks off or
    /// stalls after the status arrived is `Transport` *with* the status (at
    /// [`Stage::Stream`] or [`Stage::StreamIdle`]); an unreadable body is
    /// `Protocol`. The first and the third are retried by
    /// [`Retry`](super::retry::Retry).
    async fn post_json(&self, body: &Value) -> Result<Value, BackendError> {
        let reply = self.send(body).await?;
        let bytes = self.read_all(reply).await?;
        self.parse_answer(&bytes)
    }

    /// POSTs a streaming `body` and folds the server-sent events of the
    /// answer with `F`, sending their deltas to `sink` (scrubbed of the key,
    /// see [`DeltaScrubber`]) as they arrive. A server that answers with a
    /// whole JSON body instead of a stream is read like
    /// [`post_json`](Self::post_json) (`Answer::Whole`).
    ///
    /// With a `guard`, every delta goes through it too, and reading stops
    /// (the response dropped, so the connection closes) as soon as it says
    /// the turn ran away: `Answer::RanAway`.
    ///
    /// Errors as `post_json`'s; besides, a stream that breaks off or goes
    /// quiet for [`Timeouts::stream_idle`] is `Transport` with the status
    /// (at [`Stage::Stream`] or [`Stage::StreamIdle`]; retried), one that
    /// ends with the provider's error event is `Transport` at
    /// [`Stage::ErrorEvent`] (not retried), and an event over
    /// [`MAX_EVENT_BYTES`] or that is not SSE is `Protocol`. Each comes with
    /// what the attempt had cost so far ([`Partial`]).
    async fn post_stream<F: StreamFold>(
        &self,
        body: &Value,
        sink: DeltaSink<'_>,
        guard: Option<RunawayGuard>,
    ) -> Result<Answer, (BackendError, Partial)> {
        let unread = |e| (e, Partial::default());
        let reply = self.send(body).await.map_err(unread)?;
        let is_stream = reply
            .response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
        if !is_stream {
            let bytes = self.read_all(reply).await.map_err(unread)?;
            return self.parse_answer(&bytes).map(Answer::Whole).map_err(unread);
        }
        let mut fold = F::default();
        let mut pieces = 0;
        let folded = self
            .fold_events(reply, &mut fold, sink, guard, &mut pieces)
            .await;
        let partial = |fold: &F| Partial {
            usage: fold.usage_so_far(),
            pieces,
        };
        match folded {
            Ok(Some(guard)) => Ok(Answer::RanAway(guard)),
            Ok(None) => {
                let spent = partial(&fold);
                let mut answer = fold.finish().map_err(|e| (self.with_url(e), spent))?;
                self.scrub_answer(&mut answer);
                Ok(Answer::Streamed(answer))
            }
            Err(e) => Err((e, partial(&fold))),
        }
    }

    /// Reads the events of a streamed `reply` into `fold`, until the
    /// provider marks the end (`Ok(None)`) or the `guard` says the turn ran
    /// away (`Ok(Some(guard))`, reading stopped); counts the deltas in
    /// `pieces`.
    async fn fold_events<F: StreamFold>(
        &self,
        reply: Reply,
        fold: &mut F,
        sink: DeltaSink<'_>,
        mut guard: Option<RunawayGuard>,
        pieces: &mut u64,
    ) -> Result<Option<RunawayGuard>, BackendError> {
        let status = reply.status;
        // Bytes read since the last event came out of the parser, and in
        // all: the parser holds an unfinished event in memory.
        let since_event = std::sync::atomic::AtomicUsize::new(0);
        let total = std::sync::atomic::AtomicUsize::new(0);
        let (since_event, total) = (&since_event, &total);
        let chunks = futures::stream::unfold(Some(reply), |reply| async move {
            let mut reply = reply?;
            match self.next_chunk(&mut reply).await {
                Ok(Some(chunk)) => {
                    use std::sync::atomic::Ordering::Relaxed;
                    let pending = since_event.fetch_add(chunk.len(), Relaxed) + chunk.len();
                    let read = total.fetch_add(chunk.len(), Relaxed) + chunk.len();
                    if read > MAX_RESPONSE_BYTES {
                        Some((Err(StreamFail::TooLarge), None))
                    } else if pending > MAX_EVENT_BYTES {
                        Some((Err(StreamFail::EventTooLarge), None))
                    } else {
                        Some((Ok(chunk), Some(reply)))
                    }
                }
                Ok(None) => None,
                Err(e) => Some((Err(StreamFail::Failed(e)), None)),
            }
        });
        let mut events = std::pin::pin!(chunks.eventsource());
        let mut deltas = Vec::new();
        let mut scrubber = DeltaScrubber::new(self.can_scrub().then_some(self.secret.as_str()));
        while let Some(event) = events.next().await {
            since_event.store(0, std::sync::atomic::Ordering::Relaxed);
            let event = match event {
                Ok(event) => event,
                Err(EventStreamError::Transport(StreamFail::Failed(e))) => return Err(e),
                Err(EventStreamError::Transport(StreamFail::TooLarge)) => {
                    return Err(self.too_large(status));
                }
                Err(EventStreamError::Transport(StreamFail::EventTooLarge)) => {
                    return Err(self.protocol(
                        status,
                        format!("sent a stream event larger than {MAX_EVENT_BYTES} bytes"),
                    ));
                }
                Err(e) => {
                    return Err(self.protocol(
                        status,
                        format!("answered with a stream that is not server-sent events: {e}"),
                    ));
                }
            };
            let flow = fold.push(&event.event, &event.data, &mut deltas);
            let mut ran_away = false;
            for delta in deltas.drain(..) {
                *pieces += 1;
                if let Some(guard) = guard.as_mut() {
                    ran_away |= guard.push(&delta).is_some();
                }
                scrubber.push(delta, sink);
            }
            if let Some(guard) = guard.take_if(|_| ran_away) {
                scrubber.flush(sink);
                tracing::debug!(
                    backend = self.backend,
                    bytes = total.load(std::sync::atomic::Ordering::Relaxed),
                    "the answer ran away; stopped reading"
                );
                return Ok(Some(guard));
            }
            if flow.map_err(|e| self.with_url(e))? == Flow::End {
                break;
            }
        }
        scrubber.flush(sink);
        tracing::debug!(
            backend = self.backend,
            status,
            bytes = total.load(std::sync::atomic::Ordering::Relaxed),
            "streamed response"
        );
        Ok(None)
    }

    /// Sends `body` and returns the response once its status is a success.
    /// An error status reads the body for the provider's error (see
    /// [`post_json`](Self::post_json)).
    async fn send(&self, body: &Value) -> Result<Reply, BackendError> {
        tracing::trace!(backend = self.backend, body = %body, "request body");
        self.send_request(self.client.post(&self.url).json(body))
            .await
    }

    /// `path` below the base URL.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The path part of the base URL (`/v1` of `https://api.openai.com/v1`),
    /// empty when it has none: where OpenAI's batch endpoint names start.
    #[cfg(feature = "openai")]
    pub(crate) fn base_path(&self) -> &str {
        let after_scheme = self.base.split_once("://").map_or(&*self.base, |(_, r)| r);
        after_scheme.find('/').map_or("", |i| &after_scheme[i..])
    }

    /// A request of `method` to `path` below the base URL (the headers are
    /// added by [`send_request`](Self::send_request)).
    pub(crate) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// Sends `request` and reads at most `limit` bytes of its success body.
    pub(crate) async fn body(
        &self,
        request: reqwest::RequestBuilder,
        limit: usize,
    ) -> Result<Vec<u8>, BackendError> {
        let reply = self.send_request(request).await?;
        self.read_capped(reply, limit).await
    }

    /// Sends `request` and reads its success body as JSON, scrubbed of the
    /// key: a provider object (a batch, a file's record), at most
    /// [`MAX_OBJECT_BYTES`].
    pub(crate) async fn object(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Value, BackendError> {
        self.parse_answer(&self.body(request, MAX_OBJECT_BYTES).await?)
    }

    /// Sends `request` with the endpoint's headers and returns the response
    /// once its status is a success; errors as [`post_json`](Self::post_json)'s.
    /// The status must arrive within [`Timeouts::first_byte`]
    /// ([`Stage::FirstByte`]), and so must the body's first byte ([`Due`]).
    pub(crate) async fn send_request(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Reply, BackendError> {
        let request = request
            .headers(self.headers.clone())
            .build()
            .map_err(|e| self.transport(None, &e))?;
        let url = shown_url(request.url().as_str());
        tracing::debug!(backend = self.backend, method = %request.method(), url = %url, "request");
        let due = Due::from_now(&self.timeouts);
        let response = within(due.first_by, self.client.execute(request))
            .await
            .ok_or_else(|| self.timed_out(Stage::FirstByte, &url, None))?
            .map_err(|e| self.transport(None, &e))?;
        let status = response.status().as_u16();
        let mut reply = Reply {
            status,
            response,
            due,
        };
        if (200..300).contains(&status) {
            return Ok(reply);
        }
        let retry_after = retry_after(reply.response.headers(), SystemTime::now());
        reply.due.started = true;
        let bytes = self.read_all(reply).await?;
        let mut error = self.http_error(status, &bytes, &url);
        error.retry_after = retry_after;
        Err(error)
    }

    /// The next chunk of a reply's body (`None`: the body is complete), due
    /// as [`Due`] says. Errors: it is not there in time (`Transport` at
    /// [`Stage::FirstByte`] or [`Stage::StreamIdle`]), or the body broke
    /// off (`Transport` at [`Stage::Stream`]); both with the status.
    async fn next_chunk(&self, reply: &mut Reply) -> Result<Option<bytes::Bytes>, BackendError> {
        let (by, stage) = reply.due.next(&self.timeouts);
        let chunk = within(by, reply.response.chunk()).await;
        let url = || shown_url(reply.response.url().as_str());
        match chunk {
            None => Err(self.timed_out(stage, &url(), Some(reply.status))),
            Some(Err(e)) => Err(self.transport(Some(reply.status), &e)),
            Some(Ok(chunk)) => {
                reply.due.started = true;
                Ok(chunk)
            }
        }
    }

    /// Reads the rest of a reply, at most [`MAX_RESPONSE_BYTES`].
    async fn read_all(&self, reply: Reply) -> Result<Vec<u8>, BackendError> {
        self.read_capped(reply, MAX_RESPONSE_BYTES).await
    }

    /// Reads the rest of a reply, at most `limit` bytes (more is a
    /// `Protocol` error).
    async fn read_capped(&self, mut reply: Reply, limit: usize) -> Result<Vec<u8>, BackendError> {
        let mut bytes: Vec<u8> = Vec::new();
        while let Some(chunk) = self.next_chunk(&mut reply).await? {
            if bytes.len().saturating_add(chunk.len()) > limit {
                return Err(self.protocol(
                    reply.status,
                    format!("answered with a body larger than {limit} bytes"),
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        tracing::debug!(
            backend = self.backend,
            status = reply.status,
            bytes = bytes.len(),
            "response"
        );
        Ok(bytes)
    }

    /// Sends a `GET` of `url` and reads its answer whatever the status: the
    /// status, the content type and at most [`MAX_OBJECT_BYTES`] of the
    /// body. What the check before the first item reads. Errors: the
    /// server cannot be reached, the body broke off, or it is larger.
    async fn probe(&self, url: &str) -> Result<(u16, Option<String>, Vec<u8>), BackendError> {
        let request = self
            .client
            .get(url)
            .headers(self.headers.clone())
            .build()
            .map_err(|e| self.transport(None, &e))?;
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|e| self.transport(None, &e))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut reply = Reply {
            status,
            response,
            due: Due::from_now(&self.timeouts),
        };
        reply.due.started = true;
        let body = self.read_capped(reply, MAX_OBJECT_BYTES).await?;
        Ok((status, content_type, body))
    }

    /// A success body as JSON, scrubbed of the key.
    pub(crate) fn parse_answer(&self, bytes: &[u8]) -> Result<Value, BackendError> {
        let mut answer: Value = serde_json::from_slice(bytes).map_err(|e| {
            let detail = format!(
                "the answer from {} is not JSON: {}",
                shown_url(&self.url),
                body_kind(None, bytes)
            );
            BackendError::new(
                BackendErrorKind::Protocol,
                format!(
                    "{} answered with a body that is not JSON: {e}",
                    self.backend
                ),
            )
            .with_detail(self.scrub(&detail))
        })?;
        self.scrub_answer(&mut answer);
        Ok(answer)
    }

    fn too_large(&self, status: u16) -> BackendError {
        self.protocol(
            status,
            format!("answered with a body larger than {MAX_RESPONSE_BYTES} bytes"),
        )
    }

    pub(crate) fn protocol(&self, status: u16, what: String) -> BackendError {
        let detail = format!("{} {what}", shown_url(&self.url));
        let mut e = BackendError::new(
            BackendErrorKind::Protocol,
            format!("{} {what}", self.backend),
        )
        .with_detail(self.scrub(&detail));
        e.status = Some(status);
        e
    }

    /// Replaces the key in every string (and object key) of a provider's
    /// answer before anything else sees it: a server that echoes the key
    /// into content must not get it into results, reports or cassettes.
    /// Iterative, so the walk's depth is not bounded by the stack.
    pub(crate) fn scrub_answer(&self, answer: &mut Value) {
        if !self.can_scrub() {
            return;
        }
        let mut stack = vec![answer];
        while let Some(value) = stack.pop() {
            match value {
                Value::String(s) if s.contains(&self.secret) => *s = self.scrub(s),
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    if map.keys().any(|k| k.contains(&self.secret)) {
                        let entries = std::mem::take(map);
                        *map = entries
                            .into_iter()
                            .map(|(k, v)| (self.scrub(&k), v))
                            .collect();
                    }
                    stack.extend(map.values_mut());
                }
                _ => {}
            }
        }
    }

    fn transport(&self, status: Option<u16>, error: &reqwest::Error) -> BackendError {
        let url = error
            .url()
            .map_or_else(|| shown_url(&self.url), |u| shown_url(u.as_str()));
        let (what, stage) = if status.is_some() {
            (
                format!("the answer from {url} broke off"),
                Some(Stage::Stream),
            )
        } else if error.is_connect() && error.is_timeout() {
            let secs = secs_text(self.timeouts.connect);
            let what = format!("cannot connect to {url} within {secs} (the connect_secs setting)");
            (what, Some(Stage::Connect))
        } else if error.is_connect() {
            (format!("cannot connect to {url}"), Some(Stage::Connect))
        } else if error.is_timeout() {
            (format!("the request to {url} timed out"), None)
        } else {
            (format!("the request to {url} failed"), None)
        };
        // reqwest's Display names the URL but never headers or the body.
        let mut e = BackendError::new(
            BackendErrorKind::Transport,
            self.scrub(&format!("{}: {what}: {error}", self.backend)),
        )
        .with_detail(self.scrub(&what));
        e.status = status;
        e.stage = stage;
        e
    }

    /// A stage that did not finish within its timeout: `Transport` at
    /// `stage`, naming the URL, the wait and the setting.
    pub(crate) fn timed_out(&self, stage: Stage, url: &str, status: Option<u16>) -> BackendError {
        let wait = self.timeouts.of(stage).map(secs_text).unwrap_or_default();
        let what = match stage {
            Stage::Preflight => format!("no answer to GET {url} within {wait}"),
            Stage::StreamIdle => format!("the answer from {url} stopped: no byte for {wait}"),
            Stage::Connect => format!("cannot connect to {url} within {wait}"),
            _ => format!("no answer from {url} within {wait} of sending the request"),
        };
        let what = match stage.setting() {
            Some(setting) => format!("{what} (the {setting} setting)"),
            None => what,
        };
        let mut e = BackendError::new(
            BackendErrorKind::Transport,
            self.scrub(&format!("{}: {what}", self.backend)),
        )
        .at(stage)
        .with_detail(self.scrub(&what));
        e.status = status;
        e
    }

    /// `error` from a stream's fold, its detail naming the endpoint.
    fn with_url(&self, mut error: BackendError) -> BackendError {
        if let Some(detail) = &error.detail {
            error.detail = Some(self.scrub(&format!("{detail}, from {}", shown_url(&self.url))));
        }
        error
    }

    fn http_error(&self, status: u16, body: &[u8], url: &str) -> BackendError {
        let (provider_type, detail) = provider_error(body);
        let mut message = format!("{} answered HTTP {status}", self.backend);
        if let Some(t) = &provider_type {
            message.push_str(&format!(" ({t})"));
        }
        if let Some(d) = detail {
            message.push_str(": ");
            message.push_str(crate::text::clip(
                &d,
                crate::text::Limit::Chars(MAX_ERROR_MESSAGE_CHARS),
            ));
        }
        let shown = match body_kind(None, body) {
            "a JSON body" => format!("from {url}"),
            other => format!("from {url}, {other}"),
        };
        let mut error = BackendError::new(BackendErrorKind::Http, self.scrub(&message))
            .with_detail(self.scrub(&shown));
        error.status = Some(status);
        error.provider_type = provider_type;
        error.refused_sampling = super::refused_sampling::refusal_in(status, body);
        error
    }

    /// Whether the key is long enough to be told apart from ordinary text
    /// (an empty or one-letter "key" must not rewrite every answer).
    fn can_scrub(&self) -> bool {
        self.secret.len() >= MIN_SCRUBBED_KEY_LEN
    }

    /// Removes the key from text that came from elsewhere (error messages,
    /// answers).
    pub(crate) fn scrub(&self, text: &str) -> String {
        if self.can_scrub() && text.contains(&self.secret) {
            text.replace(&self.secret, REDACTED)
        } else {
            text.to_string()
        }
    }
}

/// The provider's error type and message from an error body, in the OpenAI
/// (`{"error": {"type", "code", "message"}}`) or Anthropic
/// (`{"type": "error", "error": {"type", "message"}}`) shape.
fn provider_error(body: &[u8]) -> (Option<String>, Option<String>) {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return (None, None);
    };
    let error = match value.get("error") {
        Some(e) if e.is_object() => e,
        Some(Value::String(s)) => return (None, Some(s.clone())),
        _ => &value,
    };
    let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_string);
    let provider_type = text("type").or_else(|| text("code"));
    (provider_type, text("message"))
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), else
/// `Retry-After` in seconds or as an HTTP date (relative to `now`).
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(seconds(ms / 1000.0));
    }
    let value = text("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| seconds(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A finite, non-negative number of seconds as a `Duration`, saturating at
/// `Duration::MAX` (a server may send `Retry-After: 1e300`; that is "too
/// long to wait", never a panic).
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

/// `d` in seconds for a message: `90 s`, `0.5 s`.
fn secs_text(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs} s")
    }
}

/// `base` without a trailing slash, joined with `path`.
fn join_url(base: &str, path: &str) -> String {
    format!("{}{path}", base.trim_end_matches('/'))
}

/// `url` as a message may show it: without user name, password, query or
/// fragment (where credentials travel when a URL carries them).
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut url) => {
            // Both fail only for URLs that cannot have them.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_query(None);
            url.set_fragment(None);
            url.to_string().trim_end_matches('/').to_string()
        }
        Err(_) => "the base URL".to_string(),
    }
}

/// What a body is, in a few words for a message: `a JSON body`, `an HTML
/// page`, `an empty body`, `plain text`. Never its content.
fn body_kind(content_type: Option<&str>, body: &[u8]) -> &'static str {
    let start = body.trim_ascii_start();
    let head = &start[..start.len().min(64)];
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    let html = content_type.is_some_and(|t| t.contains("html"));
    if start.is_empty() {
        "an empty body"
    } else if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() {
        "a JSON body"
    } else if html || head.starts_with("<!doctype html") || head.starts_with("<html") {
        "an HTML page"
    } else if matches!(start.first(), Some(b'{' | b'[')) {
        "JSON cut short or malformed"
    } else {
        "plain text"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Auth;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_static(k),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn waits_are_said_in_seconds() {
        assert_eq!(secs_text(Duration::from_secs(90)), "90 s");
        assert_eq!(secs_text(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn retry_after_seconds_date_and_ms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "3")]), now),
            Some(Duration::from_secs(3))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(7))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        // Absurd values saturate instead of panicking in Duration.
        for (name, value) in [
            ("retry-after", "1e300"),
            ("retry-after-ms", "1e300"),
            ("retry-after", "18446744073709551616"),
        ] {
            assert_eq!(
                retry_after(&headers(&[(name, value)]), now),
                Some(Duration::MAX),
                "{name}: {value}"
            );
        }
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "NaN")]), now), None);
        assert_eq!(retry_after(&headers(&[]), now), None);
    }

    fn endpoint(secret: &str) -> Endpoint {
        let provider = Provider {
            name: "test",
            path: "/test",
            models_path: "/models",
            api: "a test API",
            auth: Auth::Bearer,
            headers: &[],
            target: crate::output::SchemaTarget::Plain,
            otel_name: "test",
        };
        Endpoint::new(
            &provider,
            "http://127.0.0.1:9/",
            secret,
            Timeouts::default(),
        )
        .unwrap()
    }

    #[test]
    fn answers_are_scrubbed_of_the_key_at_any_depth() {
        let key = "sk-live-0123456789";
        let mut deep = serde_json::json!(format!("deepest {key}"));
        for _ in 0..100 {
            deep = serde_json::json!([deep]);
        }
        let mut answer = serde_json::json!({
            "content": format!("your key is {key}, again {key}"),
            "list": [1, format!("{key}"), null],
            format!("key-{key}"): {"nested": key},
            "deep": deep,
            "clean": "nothing here",
        });
        endpoint(key).scrub_answer(&mut answer);
        let text = answer.to_string();
        assert!(!text.contains(key), "{text}");
        assert_eq!(
            answer["content"],
            "your key is [redacted], again [redacted]"
        );
        assert_eq!(answer["list"][1], "[redacted]");
        assert_eq!(answer["key-[redacted]"]["nested"], "[redacted]");
        assert_eq!(answer["clean"], "nothing here");
        assert!(text.contains("deepest [redacted]"));
    }

    #[test]
    fn a_provider_with_a_malformed_header_is_a_config_error() {
        let provider = |auth, headers| Provider {
            name: "test",
            path: "/test",
            models_path: "/models",
            api: "a test API",
            auth,
            headers,
            target: crate::output::SchemaTarget::Plain,
            otel_name: "test",
        };
        for (provider, key) in [
            (provider(Auth::Header("bad name"), &[]), "sk-key"),
            (
                provider(Auth::Bearer, &[("x-version", "line\nbreak")]),
                "sk-key",
            ),
            (provider(Auth::Bearer, &[("", "1")]), "sk-key"),
            (provider(Auth::Bearer, &[]), "sk-key\n"),
        ] {
            let e = Endpoint::new(&provider, "http://127.0.0.1:9", key, Timeouts::default())
                .unwrap_err();
            assert_eq!(e.kind, BackendErrorKind::Config, "{}", e.message);
            assert!(!e.message.contains("sk-key"), "{}", e.message);
        }
    }

    #[test]
    fn a_key_too_short_to_recognise_rewrites_nothing() {
        let mut answer = serde_json::json!({"text": "a b c"});
        endpoint("a").scrub_answer(&mut answer);
        assert_eq!(answer["text"], "a b c");
    }

    #[test]
    fn provider_error_shapes() {
        let openai = br#"{"error":{"message":"bad","type":"invalid_request_error","code":null}}"#;
        assert_eq!(
            provider_error(openai),
            (Some("invalid_request_error".into()), Some("bad".into()))
        );
        let anthropic = br#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#;
        assert_eq!(
            provider_error(anthropic),
            (Some("overloaded_error".into()), Some("busy".into()))
        );
        assert_eq!(provider_error(b"<html>"), (None, None));
    }
}
