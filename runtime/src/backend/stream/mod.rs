//! Reading a provider's server-sent event stream without I/O: a
//! [`StreamFold`] per API takes the stream's events one at a time, hands
//! out the [`Delta`]s they carry, and at the end gives back the answer body
//! the same answer has when not streamed, so that [`Codec::decode`] — the
//! one decoder of each API — reads both. Usage, stop reasons and truncation
//! therefore come out of a streamed answer exactly as out of a plain one.
//!
//! [`Codec::decode`]: super::Codec::decode

use super::BackendError;
use super::delta::Delta;
use serde_json::Value;

#[cfg(feature = "anthropic")]
pub(super) mod anthropic;
#[cfg(feature = "openai")]
pub(super) mod openai_chat;
#[cfg(feature = "openai")]
pub(super) mod openai_responses;

/// Whether a stream has said all it will say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// More events may follow.
    More,
    /// The provider marked the end of the answer; later bytes are ignored.
    End,
}

/// One API's stream of events, folded into the answer body it stands for.
pub trait StreamFold: Default + Send {
    /// Takes one event: `event` is its type (the `event:` field, empty when
    /// the server sent none) and `data` its data. Pushes the deltas it
    /// carries onto `deltas`.
    ///
    /// Errors: data that is not this API's event (`Protocol`), or the
    /// provider's own error event (`Transport` with status 200: part of the
    /// answer had arrived, so it is not retried).
    fn push(
        &mut self,
        event: &str,
        data: &str,
        deltas: &mut Vec<Delta>,
    ) -> Result<Flow, BackendError>;

    /// The answer body the events add up to. Errors: the stream stopped
    /// before the provider said the answer was complete (`Transport` with
    /// status 200).
    fn finish(self) -> Result<Value, BackendError>;

    /// The usage the events so far reported, as the answer body's `usage`
    /// field would hold it (`None`: none yet) — what a stream that breaks
    /// off has already cost. Default: none.
    fn usage_so_far(&self) -> Option<Value> {
        None
    }
}

/// The fold of a codec that has no stream: the events are ignored and the
/// stream never completes. For codecs written outside this crate that do
/// not stream; [`HttpBackend`](super::HttpBackend)'s codecs all do.
#[derive(Debug, Default)]
pub struct NoStream;

impl StreamFold for NoStream {
    fn push(&mut self, _: &str, _: &str, _: &mut Vec<Delta>) -> Result<Flow, BackendError> {
        Ok(Flow::More)
    }

    fn finish(self) -> Result<Value, BackendError> {
        Err(BackendError::new(
            super::BackendErrorKind::Protocol,
            "this API has no stream reader",
        ))
    }
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// Parses one event's data as JSON. Errors (`Protocol`): not JSON.
pub(crate) fn event_json(provider: &str, data: &str) -> Result<Value, BackendError> {
    serde_json::from_str(data).map_err(|e| {
        BackendError::new(
            super::BackendErrorKind::Protocol,
            format!("{provider}: a stream event is not JSON: {e}"),
        )
    })
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The error a stream ends with when it broke off after its status arrived:
/// `Transport` with status 200 at [`Stage::Stream`](crate::backend::Stage)
/// (retried: the partial answer is discarded), with the provider's error
/// type.
pub(crate) fn broke_off(
    provider: &str,
    what: impl std::fmt::Display,
    provider_type: Option<String>,
) -> BackendError {
    let mut e = BackendError::new(
        super::BackendErrorKind::Transport,
        format!("{provider}: {what}"),
    );
    e.status = Some(200);
    e.provider_type = provider_type;
    e.at(super::Stage::Stream)
        .with_detail("the stream ended before the answer was complete")
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The error of a stream that ended with the provider's error event: its
/// error type and message (see [`error_fields`]), as [`broke_off`].
pub(crate) fn error_event(
    provider: &str,
    (kind, message): (Option<String>, String),
) -> BackendError {
    let detail = match &kind {
        Some(kind) if crate::text::is_identifier(kind) => {
            format!("the stream ended with the provider's error event ({kind})")
        }
        _ => "the stream ended with the provider's error event".to_string(),
    };
    broke_off(
        provider,
        format!("the stream ended with an error: {message}"),
        kind,
    )
    .at(super::Stage::ErrorEvent)
    .with_detail(detail)
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The `type` and `message` of a provider error object (`{"type", "code",
/// "message"}`), the message clipped.
pub(crate) fn error_fields(error: &Value) -> (Option<String>, String) {
    let text = |key: &str| error.get(key).and_then(Value::as_str);
    let kind = text("type").or_else(|| text("code")).map(str::to_string);
    let message = crate::text::clip(
        text("message").unwrap_or("no message"),
        crate::text::Limit::Chars(300),
    )
    .to_string();
    (kind, message)
}
