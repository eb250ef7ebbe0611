//! [`Timeouts`]: how long a live backend waits at each stage of a request
//! before it gives the stage up, and [`Stage`], the stage a failure
//! happened at.
//!
//! The run deadline bounds a whole run; these bound one request, so that a
//! server that stops answering is cut and asked again (within
//! [`max_retries`](super::BackendOptions::max_retries)) long before the
//! deadline, and a server that never answers is one clear error before the
//! first item instead of a run that never ends.
//!
//! | stage | setting | default | bounds | why this default |
//! |---|---|---|---|---|
//! | connect | `connect_secs` | 10 s | opening the connection (TCP, TLS) | a local server connects in about 1 ms; the official OpenAI and Anthropic SDKs allow 5 s, doubled for slow links |
//! | preflight | `preflight_secs` | 15 s | the whole check before the first item (`GET /models`) | every server measured answers it at once (llama.cpp: 40 ms, also mid-generation) |
//! | first byte | `first_byte_secs` | 300 s | from sending a request to the first byte of its answer's body | a busy local server sends no headers until a slot is free (30 s measured with three requests on two slots), and hosted reasoning models can think for minutes before their first byte (79 s reported on Chat Completions; "several minutes" by OpenAI); 300 s is also the default run deadline |
//! | stream idle | `stream_idle_secs` | 60 s | any later gap: no byte of the answer for this long | once tokens flow, gaps are seconds at most (3.8 s worst on a contended 2-core machine); llama.cpp sends a keep-alive comment after 30 s of silence (a prompt read mid-stream), Anthropic `ping`s and OpenAI Responses keep-alive events far more often, so twice llama.cpp's interval cuts only a dead stream |
//!
//! Measured on llama.cpp's `llama-server` with a 0.5B model on two CPU
//! threads (BENCHMARKS.md, "Time to first byte"): headers arrive in about
//! 40 ms, then nothing until the prompt is read — 13 to 36 s for 1,500
//! tokens, 21 to 61 s for 3,000 on a busy machine — except the keep-alive
//! comment at 30 s. Every byte counts as activity, comments included.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Default [`Timeouts::connect`], in seconds.
pub const DEFAULT_CONNECT_SECS: u64 = 10;
/// Default [`Timeouts::preflight`], in seconds.
pub const DEFAULT_PREFLIGHT_SECS: u64 = 15;
/// Default [`Timeouts::first_byte`], in seconds.
pub const DEFAULT_FIRST_BYTE_SECS: u64 = 300;
/// Default [`Timeouts::stream_idle`], in seconds.
pub const DEFAULT_STREAM_IDLE_SECS: u64 = 60;

/// The longest timeout a setting may ask for (one day): a larger number is
/// a typo, and `Duration` arithmetic must never overflow.
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// How long a live backend waits at each stage of a request (see the
/// table of defaults in [`BackendSettings::SPECS`](crate::backend::BackendSettings::SPECS) and docs/live-models.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening a connection.
    pub connect: Duration,
    /// The whole check before the first item.
    pub preflight: Duration,
    /// From sending a request to the first byte of its answer.
    pub first_byte: Duration,
    /// After the first byte: the longest gap between two bytes of an answer.
    pub stream_idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(DEFAULT_CONNECT_SECS),
            preflight: Duration::from_secs(DEFAULT_PREFLIGHT_SECS),
            first_byte: Duration::from_secs(DEFAULT_FIRST_BYTE_SECS),
            stream_idle: Duration::from_secs(DEFAULT_STREAM_IDLE_SECS),
        }
    }
}

impl Timeouts {
    /// No stage timeout at all (each `Duration::MAX`): only the run
    /// deadline bounds a request. For an embedder whose own layer times
    /// requests, and for tests on a paused clock, where any pending timer is
    /// reached at once while a real server is still answering.
    pub const fn unbounded() -> Timeouts {
        Timeouts {
            connect: Duration::MAX,
            preflight: Duration::MAX,
            first_byte: Duration::MAX,
            stream_idle: Duration::MAX,
        }
    }

    /// The timeout of `stage`, if a timeout bounds it.
    pub fn of(&self, stage: Stage) -> Option<Duration> {
        match stage {
            Stage::Connect => Some(self.connect),
            Stage::Preflight => Some(self.preflight),
            Stage::FirstByte => Some(self.first_byte),
            Stage::StreamIdle => Some(self.stream_idle),
            Stage::Stream | Stage::ErrorEvent => None,
        }
    }
}

/// Where in a request a backend failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stage {
    /// Opening the connection.
    Connect,
    /// The check before the first item (`GET /models`).
    Preflight,
    /// Waiting for the first byte of the answer.
    FirstByte,
    /// The answer stopped arriving part-way: no byte for the stream-idle
    /// timeout.
    StreamIdle,
    /// The answer broke off part-way: the connection closed or failed
    /// before the provider said the answer was complete.
    Stream,
    /// The provider ended a stream with its own error event.
    ErrorEvent,
}

impl Stage {
    /// The snake_case name (`first_byte`, `stream_idle`, …), as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Connect => "connect",
            Stage::Preflight => "preflight",
            Stage::FirstByte => "first_byte",
            Stage::StreamIdle => "stream_idle",
            Stage::Stream => "stream",
            Stage::ErrorEvent => "error_event",
        }
    }

    /// The `[backend]` setting whose timeout bounds this stage
    /// (`stream_idle_secs`, …), if one does.
    pub fn setting(self) -> Option<&'static str> {
        match self {
            Stage::Connect => Some("connect_secs"),
            Stage::Preflight => Some("preflight_secs"),
            Stage::FirstByte => Some("first_byte_secs"),
            Stage::StreamIdle => Some("stream_idle_secs"),
            Stage::Stream | Stage::ErrorEvent => None,
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `secs` as a timeout, if it is one: finite, above zero and at most
/// [`MAX_TIMEOUT_SECS`].
pub(super) fn timeout_from_secs(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs > 0.0 && secs <= MAX_TIMEOUT_SECS)
        .then(|| Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_timed_stage_names_its_setting_and_only_those() {
        let timeouts = Timeouts::default();
        for stage in [
            Stage::Connect,
            Stage::Preflight,
            Stage::FirstByte,
            Stage::StreamIdle,
            Stage::Stream,
            Stage::ErrorEvent,
        ] {
            assert_eq!(
                timeouts.of(stage).is_some(),
                stage.setting().is_some(),
                "{stage}"
            );
        }
        assert_eq!(Stage::StreamIdle.setting(), Some("stream_idle_secs"));
    }

    #[test]
    fn a_timeout_is_positive_finite_and_at_most_a_day() {
        assert_eq!(timeout_from_secs(0.5), Some(Duration::from_millis(500)));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300, 86_401.0] {
            assert_eq!(timeout_from_secs(bad), None, "{bad}");
        }
    }
}
