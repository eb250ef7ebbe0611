//! [`BackendOptions`]: how [`connect`](super::connect) builds a live
//! backend — the request settings and where the run reaches its model.

use super::settings::BackendSettings;
use super::timeouts::Timeouts;
use std::path::PathBuf;

/// How [`connect`](super::connect) builds a backend: the request settings a
/// user may change ([`BackendSettings`]: `[backend]` in `arena.toml` with
/// `run` flags laid over it; unset ones at their defaults), and where the
/// run reaches its model (base URL, cassettes, cache).
///
/// ```
/// # use tribunal_runtime::{BackendOptions, BackendSettings};
/// let options = BackendOptions::from(BackendSettings {
///     temperature: Some(0.0),
///     ..BackendSettings::default()
/// })
/// .with_base_url("http://127.0.0.1:8080/v1");
/// assert_eq!(options.settings.max_retries(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackendOptions {
    /// The request settings (output strategy, sampling, retries, timeouts…).
    pub settings: BackendSettings,
    /// The stage timeouts over the settings' (e.g.
    /// [`Timeouts::unbounded`] for a caller whose own layer times
    /// requests). Default: [`BackendSettings::timeouts`].
    pub timeouts: Option<Timeouts>,
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

impl From<BackendSettings> for BackendOptions {
    fn from(settings: BackendSettings) -> Self {
        BackendOptions {
            settings,
            ..BackendOptions::default()
        }
    }
}

impl BackendOptions {
    /// The stage timeouts: [`timeouts`](Self::timeouts), else the
    /// settings'.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts.unwrap_or_else(|| self.settings.timeouts())
    }

    /// The API root to reach.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The stage timeouts over the settings'.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = Some(timeouts);
        self
    }

    /// Record into this cassette.
    pub fn with_record(mut self, path: Option<PathBuf>) -> Self {
        self.record = path;
        self
    }

    /// Replay this cassette.
    pub fn with_replay(mut self, path: Option<PathBuf>) -> Self {
        self.replay = path;
        self
    }

    /// The rerun cache's folder.
    pub fn with_cache(mut self, dir: Option<PathBuf>) -> Self {
        self.cache = dir;
        self
    }
}
