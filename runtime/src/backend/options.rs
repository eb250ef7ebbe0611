//! [`BackendOptions`]: the settings of a live backend, resolved (every value
//! set). Written by [`BackendSettings::options`](super::BackendSettings::options),
//! taken by [`connect`](super::connect).

use super::timeouts::Timeouts;
use crate::output::OutputChoice;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// How [`connect`](super::connect) builds a backend: the output strategy
/// and the request settings a user may change, resolved (built from the
/// layerable [`BackendSettings`](super::BackendSettings) by
/// [`BackendSettings::options`](super::BackendSettings::options):
/// `[backend]` in `arena.toml`, `run` flags), and where the run reaches its
/// model (base URL, cassettes, cache).
#[derive(Debug, Clone, PartialEq)]
pub struct BackendOptions {
    /// The output strategy. Default: `auto` — see [`resolve_plan`](super::resolve_plan).
    pub output: OutputChoice,
    /// Native strategy: whether the structured-output field also rides on
    /// requests that offer tools. Default (`None`): yes on the hosted OpenAI
    /// and Anthropic APIs, no on any other base URL (see [`resolve_plan`](super::resolve_plan)).
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
    /// Whether a tool call the model wrote into its text is read as a call
    /// when the server returned none. Default (`None`): yes on servers
    /// other than the hosted OpenAI and Anthropic APIs (see
    /// [`resolve_plan`](super::resolve_plan)).
    pub read_text_calls: Option<bool>,
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
