//! [`Codec`]: one provider API's wire format as pure functions — a
//! [`ModelRequest`] to the JSON body sent, the JSON body answered to a
//! [`ModelTurn`] — and the facts about its endpoint ([`Provider`]).
//!
//! A codec does no I/O and keeps no state: [`HttpBackend`](super::HttpBackend)
//! sends what [`Codec::encode`] builds and hands what came back to
//! [`Codec::decode`], as the driver performs what the sans-I/O machine
//! decides. Encoding and decoding can therefore be snapshotted, unit-tested
//! and fuzzed without a server.

use super::config::ProviderConfig;
use super::stream::StreamFold;
use super::{BackendError, ModelRequest, SchemaTarget};
use crate::conversation::{ModelTurn, Usage};
use serde_json::Value;

/// How a provider API takes the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <key>` (OpenAI and compatible servers).
    Bearer,
    /// The key alone in the named header (`x-api-key` on Anthropic).
    Header(&'static str),
}

impl Auth {
    /// The header (name, value) that carries `key`.
    #[cfg(feature = "http")]
    pub(crate) fn header(self, key: &str) -> (&'static str, String) {
        match self {
            Auth::Bearer => ("authorization", format!("Bearer {key}")),
            Auth::Header(name) => (name, key.to_string()),
        }
    }
}

/// What is fixed about one provider API: its name, where its endpoint is,
/// how it authenticates, and the schema dialect its answers follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// The provider's one name (`openai-chat`, `openai-responses`,
    /// `anthropic`): the backend's [`name`](super::Backend::name), the CLI
    /// spelling of [`BackendKind`](super::BackendKind), the prefix of its
    /// error messages and the `backend` of its cassettes.
    pub name: &'static str,
    /// The endpoint path joined to the base URL (`/chat/completions`).
    pub path: &'static str,
    /// The path, below the base URL, that lists the models
    /// (`/models`): what the check before the first item asks.
    pub models_path: &'static str,
    /// What the API is called in a message that says a server is not one
    /// (`an OpenAI-compatible API`).
    pub api: &'static str,
    /// How the key travels.
    pub auth: Auth,
    /// Headers with fixed values that every request carries.
    pub headers: &'static [(&'static str, &'static str)],
    /// The structured-output dialect the owner schema is compiled for.
    pub target: SchemaTarget,
    /// Its OpenTelemetry `gen_ai.provider.name` (`openai` for both OpenAI
    /// APIs, `anthropic`).
    pub otel_name: &'static str,
}

/// The `anthropic-version` header value sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

impl Provider {
    /// OpenAI Chat Completions, also any OpenAI-compatible server.
    pub const OPENAI_CHAT: Provider = Provider::openai("openai-chat", "/chat/completions");
    /// OpenAI Responses.
    pub const OPENAI_RESPONSES: Provider = Provider::openai("openai-responses", "/responses");
    /// Anthropic Messages.
    pub const ANTHROPIC: Provider = Provider {
        name: "anthropic",
        path: "/v1/messages",
        models_path: "/v1/models",
        api: "an Anthropic Messages API",
        auth: Auth::Header("x-api-key"),
        headers: &[("anthropic-version", ANTHROPIC_VERSION)],
        target: SchemaTarget::Anthropic,
        otel_name: "anthropic",
    };

    /// An OpenAI API (Chat Completions, Responses) named `name` at `path`:
    /// the key as a bearer token, no fixed headers, OpenAI strict schemas.
    const fn openai(name: &'static str, path: &'static str) -> Provider {
        Provider {
            name,
            path,
            models_path: "/models",
            api: "an OpenAI-compatible API",
            auth: Auth::Bearer,
            headers: &[],
            target: SchemaTarget::OpenAi,
            otel_name: "openai",
        }
    }
}

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
