//! Choosing and connecting a live backend: [`BackendKind`], [`BackendOptions`],
//! [`ProviderConfig`] and [`connect`], which reads the provider's key and base
//! URL from the environment and stacks the wrappers.
//!
//! # Wrapper order
//!
//! Like tower's `ServiceBuilder`, the first wrapper listed sees the request
//! first. [`connect`] builds:
//!
//! ```text
//! Recording        (only with `record`)  writes what the loop saw: one line per request
//!   └─ Retry       (max_retries, default 2) retries 408/409/429/5xx/529 and connect failures
//!        └─ provider (OpenAiChat | OpenAiResponses | Anthropic): one HTTP request, no retries
//! ```
//!
//! Recording sits outside `Retry` so a cassette holds one entry per loop
//! request (the final answer or error), never the failed attempts; replaying
//! it therefore needs no retry layer and never waits. With `replay` set,
//! [`connect`] returns a bare [`Replay`] and reads no key at all.
//!
//! The run deadline is not a wrapper: the driver bounds every `complete` call
//! with it, which also cancels a retry wait.

use super::anthropic::Anthropic;
use super::openai_chat::OpenAiChat;
use super::openai_responses::OpenAiResponses;
use super::record::Recording;
use super::replay::Replay;
use super::retry::Retry;
use super::{Backend, BackendError, BackendErrorKind};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

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
    /// The CLI name: `openai-chat`, `openai-responses` or `anthropic`.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::OpenAiChat => "openai-chat",
            BackendKind::OpenAiResponses => "openai-responses",
            BackendKind::Anthropic => "anthropic",
        }
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

impl FromStr for BackendKind {
    type Err = BackendError;

    /// Parses a CLI name. `mock` is not a live backend and is refused here.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "openai-chat" => Ok(BackendKind::OpenAiChat),
            "openai-responses" => Ok(BackendKind::OpenAiResponses),
            "anthropic" => Ok(BackendKind::Anthropic),
            other => Err(BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "unknown live backend `{other}` (expected openai-chat, openai-responses or anthropic)"
                ),
            )),
        }
    }
}

/// Where the answer's schema goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// The provider's structured-output field (`response_format`,
    /// `text.format`, `output_config.format`). The default.
    #[default]
    Native,
    /// The schema is written into the system prompt and the backend reports
    /// [`SchemaTarget::Plain`](super::SchemaTarget::Plain): for
    /// OpenAI-compatible servers without `json_schema` support.
    Prompt,
}

impl FromStr for OutputMode {
    type Err = BackendError;

    /// Parses `native` or `prompt`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "native" => Ok(OutputMode::Native),
            "prompt" => Ok(OutputMode::Prompt),
            other => Err(BackendError::new(
                BackendErrorKind::Config,
                format!("unknown output mode `{other}` (expected native or prompt)"),
            )),
        }
    }
}

/// How [`connect`] builds a backend.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendOptions {
    /// Native structured output or schema in the prompt. Default: native.
    pub output_mode: OutputMode,
    /// Whether the native format is attached to requests that also offer
    /// tools (some servers stop calling tools when it is). Default: `true`.
    /// A request without tools (final answer, repair) always carries it.
    pub schema_on_tool_turns: bool,
    /// Retries per request after the first attempt. Default: 2.
    pub max_retries: u32,
    /// Extra top-level body fields merged into every request, e.g.
    /// `{"temperature": 0}` or `{"output_config": {"effort": "low"}}`.
    /// Objects are merged key by key; where both set the same value the
    /// backend's own field wins. Default: empty.
    pub extra_body: Map<String, Value>,
    /// Write every request/answer pair to this cassette (JSON Lines).
    /// Default: none.
    pub record: Option<PathBuf>,
    /// Serve answers from this cassette instead of the provider; no key is
    /// needed. Default: none.
    pub replay: Option<PathBuf>,
}

impl Default for BackendOptions {
    fn default() -> Self {
        BackendOptions {
            output_mode: OutputMode::Native,
            schema_on_tool_turns: true,
            max_retries: 2,
            extra_body: Map::new(),
            record: None,
            replay: None,
        }
    }
}

/// Everything a provider backend needs to send requests.
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    /// Model name sent to the provider.
    pub model: String,
    /// API key (never logged or written).
    pub api_key: String,
    /// Base URL without the endpoint path (e.g. `https://api.openai.com/v1`).
    pub base_url: String,
    /// Native structured output or schema in the prompt.
    pub output_mode: OutputMode,
    /// Whether the native format rides along on requests that offer tools.
    pub schema_on_tool_turns: bool,
    /// Extra top-level body fields (see [`BackendOptions::extra_body`]).
    pub extra_body: Map<String, Value>,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("base_url", &self.base_url)
            .field("output_mode", &self.output_mode)
            .field("schema_on_tool_turns", &self.schema_on_tool_turns)
            .field("extra_body", &self.extra_body)
            .finish()
    }
}

impl ProviderConfig {
    /// A config for `kind` from environment `env` (a lookup such as
    /// `|k| std::env::var(k).ok()`) and `options`.
    ///
    /// Errors: the key variable is unset or empty (a `Config` error naming it).
    pub fn from_env(
        kind: BackendKind,
        model: &str,
        options: &BackendOptions,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, BackendError> {
        let api_key = env(kind.key_var())
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                BackendError::new(
                    BackendErrorKind::Config,
                    format!(
                        "the {kind} backend needs an API key: set {}",
                        kind.key_var()
                    ),
                )
            })?;
        let base_url = env(kind.base_url_var())
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| kind.default_base_url().to_string());
        Ok(ProviderConfig {
            model: model.to_string(),
            api_key,
            base_url,
            output_mode: options.output_mode,
            schema_on_tool_turns: options.schema_on_tool_turns,
            extra_body: options.extra_body.clone(),
        })
    }
}

/// Connects a live backend, reading keys and base URLs from the process
/// environment. See [`connect_with_env`].
pub fn connect(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
) -> Result<Arc<dyn Backend>, BackendError> {
    connect_with_env(kind, model, options, &|k| std::env::var(k).ok())
}

/// Connects a live backend with the environment lookup `env`, stacking the
/// wrappers in the order given in the [module docs](self).
///
/// With [`BackendOptions::replay`] set the result is a [`Replay`] of that
/// cassette (no key needed; its backend and model must match). Errors: a
/// missing key variable, an unreadable cassette, a cassette of another
/// backend or model.
pub fn connect_with_env(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn Backend>, BackendError> {
    if let Some(path) = &options.replay {
        let replay = Replay::from_file(path)?;
        if replay.name() != kind.as_str() || replay.model() != model {
            return Err(BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "the cassette {} was recorded with {} / {}, not {kind} / {model}",
                    path.display(),
                    replay.name(),
                    replay.model()
                ),
            ));
        }
        return Ok(Arc::new(replay));
    }
    let config = ProviderConfig::from_env(kind, model, options, env)?;
    let provider: Arc<dyn Backend> = match kind {
        BackendKind::OpenAiChat => Arc::new(OpenAiChat::new(config)?),
        BackendKind::OpenAiResponses => Arc::new(OpenAiResponses::new(config)?),
        BackendKind::Anthropic => Arc::new(Anthropic::new(config)?),
    };
    let retried: Arc<dyn Backend> = Arc::new(Retry::new(provider, options.max_retries));
    match &options.record {
        Some(path) => Ok(Arc::new(Recording::new(retried, path)?)),
        None => Ok(retried),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_from_cli_names() {
        for kind in [
            BackendKind::OpenAiChat,
            BackendKind::OpenAiResponses,
            BackendKind::Anthropic,
        ] {
            assert_eq!(kind.as_str().parse::<BackendKind>(), Ok(kind));
        }
        let err = "mock".parse::<BackendKind>().unwrap_err();
        assert_eq!(err.kind, BackendErrorKind::Config);
    }

    #[test]
    fn missing_key_names_the_variable() {
        let env = |_: &str| None;
        let err = connect_with_env(
            BackendKind::Anthropic,
            "claude",
            &BackendOptions::default(),
            &env,
        )
        .err()
        .unwrap();
        assert_eq!(err.kind, BackendErrorKind::Config);
        assert!(err.message.contains("ANTHROPIC_API_KEY"), "{}", err.message);
    }

    #[test]
    fn debug_hides_the_key() {
        let env = |k: &str| (k == "OPENAI_API_KEY").then(|| "sk-test-SECRET-123".to_string());
        let cfg = ProviderConfig::from_env(
            BackendKind::OpenAiChat,
            "gpt",
            &BackendOptions::default(),
            &env,
        )
        .unwrap();
        assert_eq!(cfg.base_url, "https://api.openai.com/v1");
        assert!(!format!("{cfg:?}").contains("SECRET"));
    }
}
