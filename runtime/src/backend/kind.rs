//! What is fixed about each live provider API: [`BackendKind`] (the three
//! APIs, as the CLI and configuration files name them) and [`Provider`]
//! (its endpoint, auth, headers and schema dialect). Vocabulary: everything
//! else in the backend names these; they name only the backend's errors.

use super::{BackendError, BackendErrorKind, SchemaTarget};
use std::str::FromStr;

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
pub(super) const ANTHROPIC_VERSION: &str = "2023-06-01";

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

/// A live provider API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// OpenAI Chat Completions (`/chat/completions`), also any
    /// OpenAI-compatible server (vLLM, llama.cpp's server, Ollama).
    OpenAiChat,
    /// OpenAI Responses (`/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
}

impl BackendKind {
    /// Every live provider API.
    pub const ALL: [BackendKind; 3] = [
        BackendKind::OpenAiChat,
        BackendKind::OpenAiResponses,
        BackendKind::Anthropic,
    ];

    #[doc(hidden)] // for tribunal's own crates; no promise
    /// What is fixed about this API: its codec's
    /// [`Codec::PROVIDER`](super::Codec::PROVIDER).
    pub fn provider(self) -> &'static Provider {
        match self {
            BackendKind::OpenAiChat => &Provider::OPENAI_CHAT,
            BackendKind::OpenAiResponses => &Provider::OPENAI_RESPONSES,
            BackendKind::Anthropic => &Provider::ANTHROPIC,
        }
    }

    /// The cargo feature of `tribunal-runtime` that builds this API's
    /// backend: `openai` or `anthropic`.
    pub fn feature(self) -> &'static str {
        match self {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => "openai",
            BackendKind::Anthropic => "anthropic",
        }
    }

    /// The CLI name, the provider's name: `openai-chat`, `openai-responses`
    /// or `anthropic`.
    pub fn as_str(self) -> &'static str {
        self.provider().name
    }

    /// The environment variable holding this provider's API key.
    pub fn key_var(self) -> &'static str {
        match self {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => "OPENAI_API_KEY",
            BackendKind::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The environment variable that overrides this provider's base URL.
    pub fn base_url_var(self) -> &'static str {
        match self {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => "OPENAI_BASE_URL",
            BackendKind::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }

    /// The base URL used when the variable is unset.
    pub fn default_base_url(self) -> &'static str {
        match self {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => "https://api.openai.com/v1",
            BackendKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Written as its name (`openai-chat`, …), as configuration files spell it.
impl serde::Serialize for BackendKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl FromStr for BackendKind {
    type Err = BackendError;

    /// Parses a CLI name. `mock` is not a live backend and is refused here.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(kind) = BackendKind::ALL.into_iter().find(|k| k.as_str() == s) {
            return Ok(kind);
        }
        let [chat, responses, anthropic] = BackendKind::ALL.map(BackendKind::as_str);
        Err(BackendError::new(
            BackendErrorKind::Config,
            format!("unknown live backend `{s}` (expected {chat}, {responses} or {anthropic})"),
        ))
    }
}
