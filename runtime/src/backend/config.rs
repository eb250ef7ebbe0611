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

#[cfg(feature = "anthropic")]
use super::anthropic::Anthropic;
use super::cache::Cached;
use super::codec::Provider;
#[cfg(feature = "openai")]
use super::openai_chat::OpenAiChat;
#[cfg(feature = "openai")]
use super::openai_responses::OpenAiResponses;
use super::record::Recording;
use super::replay::Replay;
use super::retry::Retry;
use super::settings::BackendSettings;
pub use super::settings::{RESERVED_BODY_FIELDS, extra_body_problem};
use super::timeouts::Timeouts;
use super::{Backend, BackendError, BackendErrorKind};
use crate::output::{OutputChoice, OutputPlan, OutputStrategy};
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
    /// Every live provider API.
    pub const ALL: [BackendKind; 3] = [
        BackendKind::OpenAiChat,
        BackendKind::OpenAiResponses,
        BackendKind::Anthropic,
    ];

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

/// How [`connect`] builds a backend: the output strategy and the request
/// settings a user may change, resolved (built from the layerable
/// [`BackendSettings`] by [`BackendSettings::options`]: `[backend]` in
/// `arena.toml`, `run` flags), and where the run reaches its model (base
/// URL, cassettes, cache).
#[derive(Debug, Clone, PartialEq)]
pub struct BackendOptions {
    /// The output strategy. Default: `auto` — see [`resolve_plan`].
    pub output: OutputChoice,
    /// Native strategy: whether the structured-output field also rides on
    /// requests that offer tools. Default (`None`): yes on the hosted OpenAI
    /// and Anthropic APIs, no on any other base URL (see [`resolve_plan`]).
    pub schema_on_tool_turns: Option<bool>,
    /// Retries per request after the first attempt. Default:
    /// [`DEFAULT_MAX_RETRIES`](super::settings::DEFAULT_MAX_RETRIES).
    pub max_retries: u32,
    /// Sampling temperature. Default: the provider's.
    pub temperature: Option<f64>,
    /// Sampling seed (OpenAI Chat Completions and compatible servers only).
    /// Default: none.
    pub seed: Option<i64>,
    /// Whether the model may call several tools in one turn. Default: off on
    /// the OpenAI APIs (strict tools and parallel calls don't mix), the
    /// provider's default on Anthropic.
    pub parallel_tool_calls: Option<bool>,
    /// Extra top-level body fields merged into every request, e.g.
    /// `{"top_k": 20}` or `{"output_config": {"effort": "low"}}`.
    /// Objects are merged key by key; where both set the same value the
    /// backend's own field wins. Default: empty.
    pub extra_body: Map<String, Value>,
    /// Whether requests mark their stable prefix and latest message for the
    /// provider's prompt cache (Anthropic `cache_control` breakpoints; the
    /// OpenAI APIs cache prefixes by themselves). It changes what a request
    /// is billed, never its answer. Default: on.
    pub prompt_cache: bool,
    /// Whether answers are streamed so that a turn that runs away — one
    /// passage over and over, or a long blank stretch — is cut where it
    /// starts instead of paid for up to the output limit
    /// ([`RunawayGuard`](super::runaway::RunawayGuard)); a cut turn stops
    /// with [`StopReason::Runaway`](crate::conversation::StopReason::Runaway)
    /// and its usage is an estimate. Default: on.
    pub cut_runaway: bool,
    /// How long a request waits at each stage (connect, the check before
    /// the first item, first byte, stream idle) before it gives the stage
    /// up. Default: [`Timeouts::default`].
    pub timeouts: Timeouts,
    /// The API root to reach, e.g. `http://127.0.0.1:8080/v1`; wins over
    /// the base-URL variable (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`).
    /// Default: the variable, else the provider's own.
    pub base_url: Option<String>,
    /// Write every request/answer pair to this cassette (JSON Lines).
    /// Default: none.
    pub record: Option<PathBuf>,
    /// Serve answers from this cassette instead of the provider; no key is
    /// needed. Default: none.
    pub replay: Option<PathBuf>,
    /// Answer requests asked before from a cache in this folder, and cache
    /// new answers there ([`super::Cached`]). One file per backend,
    /// model, base URL and request settings, named by their digest.
    /// Default: none.
    pub cache: Option<PathBuf>,
}

/// Every setting at its default: [`BackendSettings::options`] of no settings.
impl Default for BackendOptions {
    fn default() -> Self {
        BackendSettings::default().options()
    }
}

/// The cache file of `kind` under `config`: a digest of the backend, model,
/// base URL, output plan and request settings (never the key), so answers
/// of one configuration are never served to another. Not
/// [`ProviderConfig::prompt_cache`]: prompt-cache breakpoints never change
/// an answer (the `prompt_cache` module docs, "Cassette and cache keys"). But
/// [`ProviderConfig::cut_runaway`]: a cut turn is another answer.
fn cache_file_name(kind: BackendKind, config: &ProviderConfig) -> String {
    use sha2::{Digest, Sha256};
    let identity = serde_json::json!({
        "backend": kind.as_str(),
        "model": config.model,
        "base_url": config.base_url,
        "plan": config.plan,
        "temperature": config.temperature,
        "seed": config.seed,
        "parallel_tool_calls": config.parallel_tool_calls,
        "extra_body": config.extra_body,
        "cut_runaway": config.cut_runaway,
    });
    let digest = Sha256::digest(crate::json::sorted_keys(&identity).to_string().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}.jsonl", kind.as_str())
}

/// Whether `base_url` is the provider's own hosted API (OpenAI, Azure
/// OpenAI, Anthropic) rather than another server speaking its wire format.
pub fn is_hosted(kind: BackendKind, base_url: &str) -> bool {
    let Ok(uri) = fluent_uri::Uri::parse(base_url) else {
        return false;
    };
    let host = uri
        .authority()
        .map(|a| a.host().to_ascii_lowercase())
        .unwrap_or_default();
    match kind {
        BackendKind::OpenAiChat | BackendKind::OpenAiResponses => {
            host == "api.openai.com" || host.ends_with(".openai.azure.com")
        }
        BackendKind::Anthropic => host == "api.anthropic.com",
    }
}

/// Refuses a base URL that is not an absolute `http` or `https` URL with a
/// host: one clear error before any run, instead of a failed request per
/// item.
fn check_base_url(kind: BackendKind, base_url: &str) -> Result<(), BackendError> {
    let ok = fluent_uri::Uri::parse(base_url).is_ok_and(|uri| {
        matches!(
            uri.scheme().as_str().to_ascii_lowercase().as_str(),
            "http" | "https"
        ) && uri.authority().is_some_and(|a| !a.host().is_empty())
    });
    if ok {
        Ok(())
    } else {
        Err(BackendError::new(
            BackendErrorKind::Config,
            format!(
                "the {kind} base URL {base_url:?} is not an http(s) URL with a host (from --base-url or {})",
                kind.base_url_var()
            ),
        ))
    }
}

/// The base URL `kind` is reached at: its variable (`OPENAI_BASE_URL`,
/// `ANTHROPIC_BASE_URL`) from `env`, trimmed, else the provider's own.
pub fn base_url_from_env(kind: BackendKind, env: &dyn Fn(&str) -> Option<String>) -> String {
    env(kind.base_url_var())
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| kind.default_base_url().to_string())
}

/// The output plan for `kind` at `base_url` under `options`.
///
/// `auto` picks:
///
/// - the hosted OpenAI (and Azure OpenAI) and Anthropic APIs: `native`, with
///   the schema on tool turns too — they apply it to the final text only,
///   and tools keep working;
/// - any other base URL (llama.cpp, vLLM, Ollama, a gateway): `tool`. These
///   servers compile a `json_schema` response format into a grammar, and a
///   grammar-bound model on a turn that offers tools can only write the final
///   JSON — it never calls a tool; others ignore the format altogether
///   (llama.cpp's `/v1/messages` drops `output_config`). Tool-call arguments
///   are grammar-constrained wherever tool calling works, so the answer as a
///   tool call is constrained without taking the tools away.
///
/// `schema_on_tool_turns` unset means: on for the hosted APIs, off
/// elsewhere, so no grammar-forcing schema is sent with tools.
pub fn resolve_plan(kind: BackendKind, base_url: &str, options: &BackendOptions) -> OutputPlan {
    let native_everywhere = is_hosted(kind, base_url);
    let strategy = options.output.fixed().unwrap_or(if native_everywhere {
        OutputStrategy::Native
    } else {
        OutputStrategy::Tool
    });
    let target = kind.provider().target;
    let mut plan = match strategy {
        OutputStrategy::Native => OutputPlan::native(target),
        OutputStrategy::Tool => OutputPlan::tool(target),
        OutputStrategy::Prompt => OutputPlan::prompt(),
    };
    if strategy == OutputStrategy::Native {
        plan.schema_on_tool_turns = options.schema_on_tool_turns.unwrap_or(native_everywhere);
    }
    plan
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
    /// How final answers are asked for (resolved from the options).
    pub plan: OutputPlan,
    /// Sampling temperature, if set.
    pub temperature: Option<f64>,
    /// Sampling seed, if set.
    pub seed: Option<i64>,
    /// Parallel tool calls, if set.
    pub parallel_tool_calls: Option<bool>,
    /// Extra top-level body fields (see [`BackendOptions::extra_body`]).
    pub extra_body: Map<String, Value>,
    /// Prompt-cache breakpoints on (see [`BackendOptions::prompt_cache`]).
    pub prompt_cache: bool,
    /// Runaway turns cut (see [`BackendOptions::cut_runaway`]).
    pub cut_runaway: bool,
    /// Per-stage timeouts (see [`BackendOptions::timeouts`]).
    pub timeouts: Timeouts,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("base_url", &self.base_url)
            .field("plan", &self.plan)
            .field("temperature", &self.temperature)
            .field("seed", &self.seed)
            .field("parallel_tool_calls", &self.parallel_tool_calls)
            .field("extra_body", &self.extra_body)
            .field("prompt_cache", &self.prompt_cache)
            .field("cut_runaway", &self.cut_runaway)
            .field("timeouts", &self.timeouts)
            .finish()
    }
}

impl ProviderConfig {
    /// What a client of provider `name` with this config is, as the loop
    /// and reports see it (online and batch clients alike).
    #[cfg(feature = "http")]
    pub(crate) fn info<'a>(&'a self, name: &'a str) -> super::BackendInfo<'a> {
        super::BackendInfo {
            name,
            model: &self.model,
            plan: self.plan,
        }
    }

    /// A config for `kind` from environment `env` (a lookup such as
    /// `|k| std::env::var(k).ok()`) and `options`.
    ///
    /// Without a key (its variable unset or empty) a base URL off the
    /// provider's own hosts is reached with none (no auth header); the
    /// hosted APIs are not.
    ///
    /// Errors (`Config`): no key for a hosted API (the error names its
    /// variable); a setting the provider does not take ([`check_options`]).
    pub fn from_env(
        kind: BackendKind,
        model: &str,
        options: &BackendOptions,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, BackendError> {
        check_options(kind, options)?;
        let base_url = match options.base_url.as_deref().map(str::trim) {
            Some(url) if !url.is_empty() => url.to_string(),
            _ => base_url_from_env(kind, env),
        };
        check_base_url(kind, &base_url)?;
        let key = env(kind.key_var())
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        // A server off the provider's own hosts (llama.cpp, vLLM, Ollama)
        // usually takes no key: none is sent. The hosted APIs need one.
        let api_key = match key {
            Some(key) => key,
            None if !is_hosted(kind, &base_url) => String::new(),
            None => {
                return Err(BackendError::new(
                    BackendErrorKind::Config,
                    format!(
                        "the {kind} backend needs an API key at {base_url}: set {} (a local server named by {} needs none)",
                        kind.key_var(),
                        kind.base_url_var()
                    ),
                ));
            }
        };
        Ok(ProviderConfig {
            model: model.to_string(),
            api_key,
            plan: resolve_plan(kind, &base_url, options),
            base_url,
            temperature: options.temperature,
            seed: options.seed,
            parallel_tool_calls: options.parallel_tool_calls,
            extra_body: options.extra_body.clone(),
            prompt_cache: options.prompt_cache,
            cut_runaway: options.cut_runaway,
            timeouts: options.timeouts,
        })
    }
}

/// Refuses settings `kind` cannot send, rather than dropping them: a
/// temperature outside the provider's range (OpenAI 0–2, Anthropic 0–1), a
/// seed on the Responses or Anthropic APIs, which have none, and an extra
/// body that sets a field the backend sends itself ([`extra_body_problem`]).
pub fn check_options(kind: BackendKind, options: &BackendOptions) -> Result<(), BackendError> {
    let bad = |m: String| Err(BackendError::new(BackendErrorKind::Config, m));
    if let Some(t) = options.temperature {
        let max = if kind == BackendKind::Anthropic {
            1.0
        } else {
            2.0
        };
        if !(t.is_finite() && (0.0..=max).contains(&t)) {
            return bad(format!(
                "temperature {t} is outside the {kind} range 0 to {max}"
            ));
        }
    }
    if options.seed.is_some() && kind != BackendKind::OpenAiChat {
        return bad(format!(
            "the {kind} API takes no seed (only openai-chat and compatible servers do)"
        ));
    }
    if let Some(problem) = extra_body_problem(&options.extra_body) {
        return bad(problem);
    }
    Ok(())
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
/// cassette (no key needed; its backend and model must match). Errors: an
/// extra body setting a field the backend sends itself
/// ([`RESERVED_BODY_FIELDS`]; replayed or not), a missing key variable, an
/// unreadable cassette, a cassette of another backend or model.
pub fn connect_with_env(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn Backend>, BackendError> {
    // Before the replay too: a body no live connect would send is no
    // body to replay either.
    if let Some(problem) = extra_body_problem(&options.extra_body) {
        return Err(BackendError::new(BackendErrorKind::Config, problem));
    }
    if options.replay.is_some() && options.cache.is_some() {
        return Err(BackendError::new(
            BackendErrorKind::Config,
            "a replay asks no model: --cache has nothing to do with --replay",
        ));
    }
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
        let recorded = replay.output_plan().strategy;
        if let Some(wanted) = options.output.fixed().filter(|w| *w != recorded) {
            return Err(BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "the cassette {} was recorded with the {recorded} output strategy, not {wanted}",
                    path.display()
                ),
            ));
        }
        return Ok(Arc::new(replay));
    }
    let config = ProviderConfig::from_env(kind, model, options, env)?;
    let cache_file = options
        .cache
        .as_ref()
        .map(|dir| dir.join(cache_file_name(kind, &config)));
    let provider = live_provider(kind, config)?;
    let mut retried: Arc<dyn Backend> = Arc::new(Retry::new(provider, options.max_retries));
    if let Some(file) = cache_file {
        retried = Arc::new(Cached::open(retried, file)?);
    }
    match &options.record {
        Some(path) => Ok(Arc::new(Recording::new(retried, path)?)),
        None => Ok(retried),
    }
}

/// The provider backend of `kind`, if this build has it (see
/// [`BackendKind::feature`]).
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic")),
    allow(unused_variables)
)]
fn live_provider(
    kind: BackendKind,
    config: ProviderConfig,
) -> Result<Arc<dyn Backend>, BackendError> {
    match kind {
        #[cfg(feature = "openai")]
        BackendKind::OpenAiChat => Ok(Arc::new(OpenAiChat::new(config)?)),
        #[cfg(feature = "openai")]
        BackendKind::OpenAiResponses => Ok(Arc::new(OpenAiResponses::new(config)?)),
        #[cfg(feature = "anthropic")]
        BackendKind::Anthropic => Ok(Arc::new(Anthropic::new(config)?)),
        // Reached only when a feature is off.
        #[allow(unreachable_patterns)]
        _ => Err(BackendError::new(
            BackendErrorKind::Config,
            format!(
                "this build has no {kind} backend: build tribunal-runtime with the `{}` feature",
                kind.feature()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::SchemaTarget;

    /// Whether this build has `kind`'s backend.
    fn built(kind: BackendKind) -> bool {
        match kind {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => cfg!(feature = "openai"),
            BackendKind::Anthropic => cfg!(feature = "anthropic"),
        }
    }

    #[test]
    fn a_backend_left_out_of_the_build_is_refused_naming_its_feature() {
        let env = |k: &str| (k.ends_with("_API_KEY")).then(|| "sk-test".to_string());
        for kind in BackendKind::ALL {
            let connected = connect_with_env(kind, "m", &BackendOptions::default(), &env);
            match connected {
                Ok(_) => assert!(built(kind), "{kind}"),
                Err(e) => {
                    assert!(!built(kind), "{kind}: {e}");
                    assert_eq!(e.kind, BackendErrorKind::Config);
                    assert!(
                        e.to_string()
                            .contains(&format!("`{}` feature", kind.feature())),
                        "{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_cassette_replays_in_every_build() {
        let cassette = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/cassettes/embed.qwen.jsonl"
        );
        let options = BackendOptions {
            replay: Some(cassette.into()),
            ..BackendOptions::default()
        };
        let replay = connect_with_env(BackendKind::OpenAiChat, "qwen", &options, &|_| None);
        let backend = replay.map_err(|e| e.to_string()).unwrap();
        assert_eq!((backend.name(), backend.model()), ("openai-chat", "qwen"));
    }

    #[test]
    fn kinds_parse_from_cli_names() {
        for kind in BackendKind::ALL {
            assert_eq!(kind.as_str().parse::<BackendKind>(), Ok(kind));
        }
        let err = "mock".parse::<BackendKind>().unwrap_err();
        assert_eq!(err.kind, BackendErrorKind::Config);
        assert!(
            err.message
                .contains("(expected openai-chat, openai-responses or anthropic)"),
            "{}",
            err.message
        );
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
    fn auto_keeps_native_on_hosted_apis_and_never_grammars_tool_turns_elsewhere() {
        let auto = BackendOptions::default();
        let chat = BackendKind::OpenAiChat;
        let hosted = resolve_plan(chat, "https://api.openai.com/v1", &auto);
        assert_eq!(hosted, OutputPlan::native(SchemaTarget::OpenAi));
        assert!(hosted.schema_on_tool_turns);
        let azure = resolve_plan(
            BackendKind::OpenAiResponses,
            "https://team.openai.azure.com/openai/v1",
            &auto,
        );
        assert_eq!(azure.strategy, OutputStrategy::Native);
        for local in [
            "http://127.0.0.1:18084/v1",
            "http://vllm:8000/v1",
            "not a url",
        ] {
            let plan = resolve_plan(chat, local, &auto);
            assert_eq!(plan, OutputPlan::tool(SchemaTarget::OpenAi), "{local}");
            assert!(!plan.schema_on_tool_turns);
        }
        // A look-alike host is not the hosted API.
        let lookalike = resolve_plan(chat, "https://api.openai.com.evil.example/v1", &auto);
        assert_eq!(lookalike.strategy, OutputStrategy::Tool);
        // Native on a compatible server: no schema beside tools unless asked.
        let native = BackendOptions {
            output: OutputChoice::Native,
            ..BackendOptions::default()
        };
        let plan = resolve_plan(chat, "http://127.0.0.1:18084/v1", &native);
        assert_eq!(plan.strategy, OutputStrategy::Native);
        assert!(!plan.schema_on_tool_turns);
        let forced = BackendOptions {
            schema_on_tool_turns: Some(true),
            ..native.clone()
        };
        assert!(resolve_plan(chat, "http://127.0.0.1:18084/v1", &forced).schema_on_tool_turns);
        let anthropic = resolve_plan(BackendKind::Anthropic, "https://api.anthropic.com", &auto);
        assert_eq!(anthropic, OutputPlan::native(SchemaTarget::Anthropic));
        let elsewhere = resolve_plan(BackendKind::Anthropic, "http://127.0.0.1:9/", &auto);
        assert_eq!(elsewhere, OutputPlan::tool(SchemaTarget::Anthropic));
        let prompt = BackendOptions {
            output: OutputChoice::Prompt,
            ..BackendOptions::default()
        };
        assert_eq!(
            resolve_plan(BackendKind::Anthropic, "https://api.anthropic.com", &prompt),
            OutputPlan::prompt()
        );
    }

    #[test]
    fn settings_a_provider_cannot_take_are_config_errors() {
        let with = |temperature, seed| BackendOptions {
            temperature,
            seed,
            ..BackendOptions::default()
        };
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(1.5), Some(7))).is_ok());
        let hot = check_options(BackendKind::Anthropic, &with(Some(1.5), None)).unwrap_err();
        assert!(
            hot.message.contains("outside the anthropic range 0 to 1"),
            "{}",
            hot.message
        );
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(f64::NAN), None)).is_err());
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(-0.1), None)).is_err());
        let seed = check_options(BackendKind::OpenAiResponses, &with(None, Some(1))).unwrap_err();
        assert!(seed.message.contains("takes no seed"), "{}", seed.message);
        // An embedder's extra body may not set what the backend sends:
        // `stream` would break reading the answer (every call streams).
        let mut streamed = with(None, None);
        streamed
            .extra_body
            .insert("stream".into(), serde_json::json!(false));
        let owned = check_options(BackendKind::OpenAiChat, &streamed).unwrap_err();
        assert_eq!(owned.kind, BackendErrorKind::Config);
        assert!(
            owned.message.contains("extra_body sets stream"),
            "{}",
            owned.message
        );
    }

    #[test]
    fn connect_refuses_an_extra_body_setting_a_reserved_field_for_every_caller() {
        let env = |k: &str| (k.ends_with("_API_KEY")).then(|| "sk-test".to_string());
        let cassette = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/cassettes/embed.qwen.jsonl"
        );
        let messages = BackendOptions {
            extra_body: serde_json::json!({"messages": [], "top_k": 20})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..BackendOptions::default()
        };
        let replayed = BackendOptions {
            replay: Some(cassette.into()),
            ..messages.clone()
        };
        for kind in BackendKind::ALL {
            for options in [&messages, &replayed] {
                let err = connect_with_env(kind, "qwen", options, &env)
                    .err()
                    .map(|e| (e.kind, e.message));
                let (code, message) = err.unwrap_or_else(|| panic!("{kind}: connected"));
                assert_eq!(code, BackendErrorKind::Config);
                assert!(
                    message.starts_with("extra_body sets messages, which the backend itself sends"),
                    "{kind}: {message}"
                );
            }
        }
        // The same body without the reserved field connects.
        let mut fine = messages.clone();
        fine.extra_body.remove("messages");
        let chat = connect_with_env(BackendKind::OpenAiChat, "qwen", &fine, &env);
        assert_eq!(chat.is_ok(), built(BackendKind::OpenAiChat));
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

    #[test]
    fn the_base_url_option_wins_and_a_bad_url_is_refused_once() {
        let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:1/v1".to_string());
        let options = BackendOptions {
            base_url: Some("http://127.0.0.1:8080/v1".to_string()),
            ..BackendOptions::default()
        };
        let cfg = ProviderConfig::from_env(BackendKind::OpenAiChat, "m", &options, &env).unwrap();
        assert_eq!(cfg.base_url, "http://127.0.0.1:8080/v1");
        for bad in ["not-a-url", "ftp://host/v1", "http://"] {
            let options = BackendOptions {
                base_url: Some(bad.to_string()),
                ..BackendOptions::default()
            };
            let err =
                ProviderConfig::from_env(BackendKind::OpenAiChat, "m", &options, &env).unwrap_err();
            assert!(
                err.message.contains("is not an http(s) URL"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn a_local_server_needs_no_key_and_a_hosted_api_does() {
        let options = BackendOptions::default();
        for kind in [BackendKind::OpenAiChat, BackendKind::Anthropic] {
            let local = |k: &str| {
                (k == kind.base_url_var()).then(|| "http://127.0.0.1:8080/v1".to_string())
            };
            let cfg = ProviderConfig::from_env(kind, "qwen", &options, &local).unwrap();
            assert_eq!(cfg.api_key, "", "{kind}");
            let hosted = |_: &str| None;
            let err = ProviderConfig::from_env(kind, "m", &options, &hosted).unwrap_err();
            assert!(err.message.contains(kind.key_var()), "{}", err.message);
            assert!(
                err.message.contains(kind.default_base_url()),
                "{}",
                err.message
            );
        }
    }
}
