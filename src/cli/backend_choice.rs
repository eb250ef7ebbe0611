//! `--backend` on `run` and `judge run`: the mock or a live provider, and the
//! one function that checks the flags against that choice and connects a
//! live backend.

use super::backend_flags::BackendFlags;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use tribunal::judge::internal::run::{Environment, connect_model};
use tribunal::runtime::Backend;
use tribunal::runtime::{BackendKind, BackendOptions, BackendSettings};

/// The accepted values of `--backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum BackendChoice {
    /// Scripted turns: no key, no network.
    #[default]
    Mock,
    /// OpenAI Chat Completions, also any OpenAI-compatible server.
    #[value(name = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses.
    #[value(name = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
}

impl BackendChoice {
    /// The live provider chosen; `None` for the mock.
    pub(crate) fn live(self) -> Option<BackendKind> {
        match self {
            BackendChoice::Mock => None,
            BackendChoice::OpenAiChat => Some(BackendKind::OpenAiChat),
            BackendChoice::OpenAiResponses => Some(BackendKind::OpenAiResponses),
            BackendChoice::Anthropic => Some(BackendKind::Anthropic),
        }
    }
}

/// A `--model` named with its provider, as other eval tools write it —
/// `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`, or a backend's own
/// name (`openai-responses/…`) — read when `--backend` is not given:
/// the backend and the model name without the prefix. `openai/` is the
/// Chat Completions API (the one every OpenAI-compatible server speaks). A
/// model whose prefix names no provider (`meta-llama/Llama-3.1-8B` on
/// vLLM) is not split: it needs `--backend`.
pub(crate) fn split_provider(model: &str) -> Option<(BackendChoice, &str)> {
    let (provider, name) = model.split_once('/')?;
    let choice = match provider {
        "openai" | "openai-chat" => BackendChoice::OpenAiChat,
        "openai-responses" => BackendChoice::OpenAiResponses,
        "anthropic" => BackendChoice::Anthropic,
        _ => return None,
    };
    (!name.is_empty()).then_some((choice, name))
}

/// `--model provider/name` without `--backend` (which then reads `mock`,
/// its default): the backend from the prefix, the model without it
/// ([`split_provider`]); anything else is left as given.
pub(crate) fn read_provider_prefix(backend: &mut BackendChoice, model: &mut Option<String>) {
    if *backend == BackendChoice::Mock
        && let Some((choice, name)) = model.as_deref().and_then(split_provider)
    {
        (*backend, *model) = (choice, Some(name.to_string()));
    }
}

/// What `--backend` and the flags beside it asked for.
pub(crate) struct BackendRequest<'a> {
    /// `--backend`.
    pub(crate) choice: BackendChoice,
    /// `--model` (required by a live backend).
    pub(crate) model: Option<&'a str>,
    /// The cassette `--record` writes.
    pub(crate) record: Option<PathBuf>,
    /// The cassette `--replay` serves.
    pub(crate) replay: Option<PathBuf>,
    /// The `--cache` folder.
    pub(crate) cache: Option<PathBuf>,
    /// The live-backend flags as given (any of them refuses the mock).
    pub(crate) flags: &'a BackendFlags,
}

/// The backend a command runs on.
pub(crate) enum Chosen {
    /// The mock: the caller builds its scripted backend.
    Mock,
    /// A connected live backend: `Recording(Retry(provider))`, or a `Replay`.
    Live(Arc<dyn Backend>),
}

impl BackendRequest<'_> {
    /// Checks the flags against the choice: the live provider and model,
    /// `None` for the mock.
    ///
    /// The mock refuses `--model`, `--record`, `--replay`, `--cache` and
    /// every live-backend flag; a live backend needs `--model`.
    pub(crate) fn check(&self) -> anyhow::Result<Option<(BackendKind, String)>> {
        let Some(kind) = self.choice.live() else {
            if let Some(model) = self.model {
                // Without --backend the mock runs: a user who named a model
                // would believe they had tested it.
                anyhow::bail!(
                    "--model {model} needs a live --backend: without one, tribunal runs the mock (scripted turns), which tests no model. Add --backend openai-chat (OpenAI, or any OpenAI-compatible server at OPENAI_BASE_URL), --backend openai-responses or --backend anthropic, or name the provider in the model (--model openai/{model})"
                );
            }
            if self.record.is_some() || self.replay.is_some() || self.cache.is_some() {
                anyhow::bail!("--record, --replay and --cache need a live --backend");
            }
            if self.flags.any() {
                anyhow::bail!(
                    "--output, --temperature, --base-url and the other backend flags need a live --backend"
                );
            }
            return Ok(None);
        };
        let model = self
            .model
            .context("--model is required with a live --backend")?;
        Ok(Some((kind, model.to_string())))
    }

    /// [`check`](Self::check)s the flags and connects a live backend with
    /// `settings` (its key and base URL from `env`, none with `--replay`),
    /// as an arena's run connects its own ([`connect_model`]). The folder of
    /// the `--record` cassette is created.
    pub(crate) fn choose(
        self,
        settings: &BackendSettings,
        env: &Environment,
    ) -> anyhow::Result<Chosen> {
        let Some((kind, model)) = self.check()? else {
            return Ok(Chosen::Mock);
        };
        let options = BackendOptions {
            settings: settings.clone(),
            timeouts: None,
            base_url: self.flags.base_url().map(str::to_string),
            record: self.record,
            replay: self.replay,
            cache: self.cache,
        };
        Ok(Chosen::Live(connect_model(kind, &model, &options, env)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;
    use tribunal::judge::internal::run::backends::MOCK_BACKEND;

    #[test]
    fn a_provider_prefix_names_the_backend_and_other_slashes_stay_in_the_model() {
        assert_eq!(
            split_provider("openai/gpt-4.1-mini"),
            Some((BackendChoice::OpenAiChat, "gpt-4.1-mini"))
        );
        assert_eq!(
            split_provider("openai-responses/o4-mini"),
            Some((BackendChoice::OpenAiResponses, "o4-mini"))
        );
        assert_eq!(
            split_provider("anthropic/claude-sonnet-4-5"),
            Some((BackendChoice::Anthropic, "claude-sonnet-4-5"))
        );
        // A vLLM model id: no provider, not split.
        assert_eq!(split_provider("meta-llama/Llama-3.1-8B"), None);
        assert_eq!(split_provider("openai/"), None);
        assert_eq!(split_provider("qwen"), None);
    }

    #[test]
    fn the_live_names_are_the_runtime_names() {
        for choice in BackendChoice::value_variants() {
            let name = choice.to_possible_value().map(|p| p.get_name().to_string());
            let runtime_name = choice.live().map_or(MOCK_BACKEND, BackendKind::as_str);
            assert_eq!(name.as_deref(), Some(runtime_name));
        }
    }
}
