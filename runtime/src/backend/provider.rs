//! [`ProviderConfig`]: everything a provider backend needs to send requests,
//! resolved from a [`BackendKind`], [`BackendOptions`] and the environment
//! (the key, the base URL, the output plan), with the checks that refuse a
//! setting the provider cannot take.

use super::kind::BackendKind;
use super::options::BackendOptions;
use super::settings::BackendSettings;
use super::timeouts::Timeouts;
use super::{BackendError, BackendErrorKind};
use crate::output::{OutputPlan, OutputStrategy};

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
/// `read_text_calls` unset means the reverse: off for the hosted APIs (they
/// return every call as a call), on elsewhere, where a small model writes
/// its calls into its text and the server may not parse them.
pub fn resolve_plan(kind: BackendKind, base_url: &str, options: &BackendOptions) -> OutputPlan {
    let native_everywhere = is_hosted(kind, base_url);
    let strategy = options
        .settings
        .output
        .fixed()
        .unwrap_or(if native_everywhere {
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
        plan.schema_on_tool_turns = options
            .settings
            .schema_on_tool_turns
            .unwrap_or(native_everywhere);
    }
    plan.read_text_calls = options
        .settings
        .read_text_calls
        .unwrap_or(!native_everywhere);
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
    /// How final answers are asked for (resolved from the settings).
    pub plan: OutputPlan,
    /// The request settings, checked for this provider
    /// (`check_options`).
    pub settings: BackendSettings,
    /// Per-stage timeouts ([`BackendOptions::timeouts`]).
    pub timeouts: Timeouts,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("base_url", &self.base_url)
            .field("plan", &self.plan)
            .field("settings", &self.settings)
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
    /// variable); a setting the provider does not take (`check_options`).
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
            settings: options.settings.clone(),
            timeouts: options.timeouts(),
        })
    }
}

/// Refuses settings `kind` cannot send, rather than dropping them: a
/// temperature outside the provider's range (OpenAI 0–2, Anthropic 0–1), a
/// seed on the Responses or Anthropic APIs, which have none, and an extra
/// body that sets a field the backend sends itself
/// ([`RESERVED_BODY_FIELDS`](super::settings::RESERVED_BODY_FIELDS)).
pub(super) fn check_options(
    kind: BackendKind,
    options: &BackendOptions,
) -> Result<(), BackendError> {
    let bad = |m: String| Err(BackendError::new(BackendErrorKind::Config, m));
    let settings = &options.settings;
    if let Some(t) = settings.temperature {
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
    if settings.seed.is_some() && kind != BackendKind::OpenAiChat {
        return bad(format!(
            "the {kind} API takes no seed (only openai-chat and compatible servers do)"
        ));
    }
    if let Some(problem) = settings.problem_of("extra_body") {
        return bad(problem.to_string());
    }
    Ok(())
}
