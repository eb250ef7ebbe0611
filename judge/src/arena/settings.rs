//! The `[backend]` table of `arena.toml` — the output strategy and the
//! request settings of live backends — read into the runtime's
//! [`BackendSettings`] (re-exported here), whose `overlaid` lays
//! command-line flags over it; each value that cannot be used is a lint
//! problem at its line.
//!
//! ```toml
//! [backend]
//! output = "auto"               # auto | native | tool | prompt
//! schema_on_tool_turns = false  # native only; default per base URL
//! max_retries = 2
//! max_output_tokens = 1024
//! temperature = 0
//! seed = 7                      # openai-chat and compatible servers only
//! parallel_tool_calls = false
//! extra_body = { top_k = 20 }   # merged into every request body
//! prompt_cache = false          # default on: Anthropic cache breakpoints
//! cut_runaway = false           # default on: stream, cut a turn that loops
//! read_text_calls = false       # default on off the hosted APIs: calls written as text
//! connect_secs = 10             # timeouts per stage of a request (the
//! preflight_secs = 15           #   defaults shown; the runtime's
//! first_byte_secs = 300         #   `backend::timeouts` says why)
//! stream_idle_secs = 60
//! ```
//!
//! Everything but `max_retries`, the timeouts and `prompt_cache` enters the
//! config hash (with the output plan the backend resolved): retrying harder
//! or waiting longer changes how hard we try, not what is asked, so `--retry-errors --max-retries 5` may
//! continue a results file; prompt-cache breakpoints change what a request
//! is billed, not what the model is asked or answers, so runs with caching
//! on and off are one configuration (and `compare` sets their costs side
//! by side). `cut_runaway` and `read_text_calls` enter the hash only when
//! set: a cut turn, or a call read from text, is another answer.
//! Mock runs ignore the table.

use crate::problem::Problem;
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::collections::HashMap;
pub use tribunal_runtime::internal::backend::{
    BackendSettings, RESERVED_BODY_FIELDS, SettingProblem,
};

/// `[backend]` as read: the settings without the values that cannot be
/// used, each one a problem at its line of `text` (`line_at` maps a byte
/// offset of it to its line).
pub(crate) fn checked(
    settings: BackendSettings,
    file: &str,
    text: &str,
    line_at: &dyn Fn(usize) -> usize,
    problems: &mut Vec<Problem>,
) -> BackendSettings {
    let (settings, found) = settings.checked();
    if found.is_empty() {
        return settings;
    }
    let values = toml::from_str::<SpannedBackend>(text)
        .map(|t| t.backend)
        .unwrap_or_default();
    for problem in found {
        let message = format!("backend.{problem}");
        problems.push(match values.get(problem.field()) {
            Some(value) => Problem::at(file, line_at(value.span().start), message),
            None => Problem::file(file, message),
        });
    }
    settings
}

/// Where each value of `[backend]` is written (read again only when one
/// of them has a problem).
#[derive(Deserialize)]
struct SpannedBackend {
    #[serde(default)]
    backend: HashMap<String, toml::Spanned<IgnoredAny>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `[backend]` table of arena.toml `text` as checked: the settings
    /// kept, and each problem as lint prints it.
    fn checked_text(text: &str) -> (BackendSettings, Vec<String>) {
        let line_at = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        #[derive(Deserialize)]
        struct Arena {
            backend: BackendSettings,
        }
        let read: Arena = toml::from_str(text).unwrap();
        let mut problems = Vec::new();
        let kept = checked(read.backend, "arena.toml", text, &line_at, &mut problems);
        (kept, problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn each_problem_is_at_its_value_s_line() {
        let text = "name = \"a\"\n[backend]\nseed = 1\ntemperature = 9\n\n[backend.extra_body]\nstream = true\n";
        let (kept, lines) = checked_text(text);
        assert_eq!(
            lines,
            [
                "arena.toml:4: backend.temperature must be between 0 and 2, not 9",
                "arena.toml:6: backend.extra_body sets stream, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)",
            ]
        );
        assert_eq!(kept.seed, Some(1));
        assert_eq!((kept.temperature, kept.extra_body.len()), (None, 0));
    }

    #[test]
    fn a_timeout_that_is_no_wait_is_a_problem_at_its_line() {
        let text = "name = \"a\"\n[backend]\nconnect_secs = 2\nstream_idle_secs = 0\nfirst_byte_secs = 1e9\n";
        let (kept, lines) = checked_text(text);
        assert_eq!(
            lines,
            [
                "arena.toml:5: backend.first_byte_secs must be a number of seconds above 0 and at most 86400, not 1000000000",
                "arena.toml:4: backend.stream_idle_secs must be a number of seconds above 0 and at most 86400, not 0",
            ]
        );
        assert_eq!(kept.connect_secs, Some(2.0));
        assert_eq!((kept.stream_idle_secs, kept.first_byte_secs), (None, None));
    }
}
