//! [`Codec`]: one provider API's wire format as pure functions — a
//! [`ModelRequest`] to the JSON body sent, the JSON body answered to a
//! [`ModelTurn`] — and the facts about its endpoint ([`Provider`]).
//!
//! A codec does no I/O and keeps no state: [`HttpBackend`](super::HttpBackend)
//! sends what [`Codec::encode`] builds and hands what came back to
//! [`Codec::decode`], as the driver performs what the sans-I/O machine
//! decides. Encoding and decoding can therefore be snapshotted, unit-tested
//! and fuzzed without a server.

pub(crate) use super::kind::Provider;
use super::provider::ProviderConfig;
use super::stream::StreamFold;
use super::{BackendError, ModelRequest};
use crate::conversation::{ModelTurn, Usage};
use serde_json::Value;

/// One provider API's wire format, free of I/O.
///
/// Implemented by zero-sized types, one per API
/// ([`OpenAiChatCodec`](super::openai_chat::OpenAiChatCodec),
/// [`OpenAiResponsesCodec`](super::openai_responses::OpenAiResponsesCodec),
/// [`AnthropicCodec`](super::anthropic::AnthropicCodec)); the backend that
/// speaks it is [`HttpBackend<C>`](super::HttpBackend).
pub trait Codec: Send + Sync + 'static {
    /// The API's name, endpoint, auth and schema target.
    const PROVIDER: Provider;

    /// The JSON body that asks the model of `config` for `request`, with
    /// `config`'s sampling settings and extra body fields. Errors: the body
    /// cannot be serialised (`Protocol`).
    fn encode(request: &ModelRequest, config: &ProviderConfig) -> Result<Value, BackendError>;

    /// The assistant turn in a successful answer body (already scrubbed of
    /// the key). Errors: a body that is not this API's answer, or one that
    /// reports a failure in place of a turn (`Protocol`, never a panic).
    fn decode(answer: Value) -> Result<ModelTurn, BackendError>;

    /// The tokens an answer body's `usage` field counts (what a stream that
    /// broke off had reported, [`StreamFold::usage_so_far`]); nothing for a
    /// field that is not this API's usage.
    fn usage(usage: Value) -> Usage;

    /// How this API's answer streams: the fold of its server-sent events
    /// back into the body [`decode`](Codec::decode) reads
    /// ([`NoStream`](super::stream::NoStream) for an API that is not
    /// streamed).
    type Stream: StreamFold;

    /// Turns an [`encode`](Codec::encode)d body into a request for a
    /// streamed answer (`"stream": true`, …) and returns true; the default
    /// leaves it alone and returns false, and the answer is then read whole.
    fn stream_body(body: &mut Value) -> bool {
        let _ = body;
        false
    }
}

/// The error `C` decodes `answer` to, checked to be a protocol error whose
/// message starts with the provider's name.
#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
pub(crate) fn decode_error<C: Codec>(answer: Value) -> BackendError {
    let shown = answer.to_string();
    let Err(error) = C::decode(answer) else {
        panic!("{} decoded {shown}", C::PROVIDER.name);
    };
    assert_eq!(
        error.kind,
        super::BackendErrorKind::Protocol,
        "{}",
        error.message
    );
    let prefix = format!("{}: ", C::PROVIDER.name);
    assert!(error.message.starts_with(&prefix), "{}", error.message);
    error
}

/// Checks that `C` decodes each of `bodies` to a protocol error (see
/// [`decode_error`]) whose message contains `says`.
#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
pub(crate) fn assert_decode_errors<C: Codec>(says: &str, bodies: impl IntoIterator<Item = Value>) {
    for body in bodies {
        let error = decode_error::<C>(body);
        assert!(error.message.contains(says), "{}", error.message);
    }
}
