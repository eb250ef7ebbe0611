//! The live-backend flags `run` and `judge run` share: the output strategy
//! and request settings, laid over an arena's `[backend]` table.

use super::heading;
use anyhow::Context;
use serde_json::Value;
use tribunal::runtime::OutputChoice;
use tribunal::runtime::backend::BackendSettings;

#[derive(Debug, Default, clap::Args)]
pub(crate) struct BackendFlags {
    /// The API root of the model's server, e.g. http://127.0.0.1:8080/v1.
    ///
    /// The API root of the model's server, e.g. http://127.0.0.1:8080/v1
    /// (default: OPENAI_BASE_URL or ANTHROPIC_BASE_URL, else the provider's
    /// own). A server off the provider's hosts needs no key.
    #[arg(long, value_name = "URL", help_heading = heading::MODEL)]
    base_url: Option<String>,
    /// Per-request output-token ceiling.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = heading::BUDGETS, hide_short_help = true)]
    max_output_tokens: Option<u32>,
    /// Output strategy: auto, native, tool or prompt.
    ///
    /// Output strategy: auto (default: native on the hosted OpenAI and
    /// Anthropic APIs, tool on any other base URL),
    /// native, tool or prompt.
    #[arg(long, value_name = "STRATEGY", help_heading = heading::BACKEND, hide_short_help = true)]
    output: Option<OutputChoice>,
    /// Native strategy: also send the schema on requests that offer tools.
    ///
    /// Native strategy: also send the schema on requests that offer tools
    /// (default: yes on the hosted APIs, no elsewhere).
    #[arg(long, value_name = "BOOL", conflicts_with = "no_schema_on_tool_turns", help_heading = heading::BACKEND, hide_short_help = true)]
    schema_on_tool_turns: Option<bool>,
    /// `--schema-on-tool-turns false`.
    #[arg(long, help_heading = heading::BACKEND, hide_short_help = true)]
    no_schema_on_tool_turns: bool,
    /// Retries per request after the first attempt (default 2).
    #[arg(long, value_name = "N", help_heading = heading::BACKEND, hide_short_help = true)]
    max_retries: Option<u32>,
    /// Sampling temperature.
    #[arg(long, value_name = "T", help_heading = heading::BACKEND, hide_short_help = true)]
    temperature: Option<f64>,
    /// Sampling seed (openai-chat and compatible servers).
    #[arg(long, value_name = "N", help_heading = heading::BACKEND, hide_short_help = true)]
    seed: Option<i64>,
    /// Whether the model may call several tools in one turn.
    #[arg(long, value_name = "BOOL", conflicts_with = "no_parallel_tool_calls", help_heading = heading::BACKEND, hide_short_help = true)]
    parallel_tool_calls: Option<bool>,
    /// `--parallel-tool-calls false`.
    #[arg(long, help_heading = heading::BACKEND, hide_short_help = true)]
    no_parallel_tool_calls: bool,
    /// A JSON object merged into every request body, e.g. '{"top_k": 20}'.
    #[arg(long, value_name = "JSON", help_heading = heading::BACKEND, hide_short_help = true)]
    extra_body: Option<String>,
    /// Whether requests mark their prefix for the provider's prompt cache.
    ///
    /// Whether requests mark their prefix for the provider's prompt cache
    /// (Anthropic `cache_control` breakpoints; default: yes).
    #[arg(long, value_name = "BOOL", conflicts_with = "no_prompt_cache", help_heading = heading::BACKEND, hide_short_help = true)]
    prompt_cache: Option<bool>,
    /// `--prompt-cache false`: send no prompt-cache breakpoints.
    #[arg(long, help_heading = heading::BACKEND, hide_short_help = true)]
    no_prompt_cache: bool,
    /// Whether a turn that repeats itself is cut where it began (default: yes).
    ///
    /// Whether answers stream so that a turn repeating itself (or writing a
    /// long blank stretch) is cut there, not paid for up to the output
    /// limit (default: yes).
    #[arg(long, value_name = "BOOL", conflicts_with = "no_cut_runaway", help_heading = heading::BACKEND, hide_short_help = true)]
    cut_runaway: Option<bool>,
    /// `--cut-runaway false`: never cut a turn that repeats itself.
    #[arg(long, help_heading = heading::BACKEND, hide_short_help = true)]
    no_cut_runaway: bool,
    /// Whether a tool call written as text is read as a call (default: yes
    /// off the hosted APIs).
    ///
    /// Whether a tool call the model wrote into its text (a JSON object with
    /// the tool's `name` and `arguments`, bare, fenced or in `<tool_call>`
    /// tags) is read as a call when the server returned none. Default: yes
    /// for any server but the hosted OpenAI and Anthropic APIs.
    #[arg(long, value_name = "BOOL", conflicts_with = "no_read_text_calls", help_heading = heading::BACKEND, hide_short_help = true)]
    read_text_calls: Option<bool>,
    /// `--read-text-calls false`: take only the calls the server returns.
    #[arg(long, help_heading = heading::BACKEND, hide_short_help = true)]
    no_read_text_calls: bool,
    /// Seconds to open a connection to the model's server (default 10).
    #[arg(long, value_name = "S", help_heading = heading::BACKEND, hide_short_help = true)]
    connect_secs: Option<f64>,
    /// Seconds for the check before the first item, `GET /models` (default 15).
    #[arg(long, value_name = "S", help_heading = heading::BACKEND, hide_short_help = true)]
    preflight_secs: Option<f64>,
    /// Seconds from a request to the first byte of its answer (default 300).
    ///
    /// Seconds from sending a request to the first byte of its answer: a
    /// busy local server or a reasoning model may take minutes (default 300).
    #[arg(long, value_name = "S", help_heading = heading::BACKEND, hide_short_help = true)]
    first_byte_secs: Option<f64>,
    /// Seconds an answer may go without a byte once it started (default 60).
    ///
    /// Seconds an answer may go without a byte once it started before it
    /// is cut and asked again (default 60).
    #[arg(long, value_name = "S", help_heading = heading::BACKEND, hide_short_help = true)]
    stream_idle_secs: Option<f64>,
}

impl BackendFlags {
    /// The settings these flags set (unset flags stay at their defaults, so
    /// laying them over a table keeps its values).
    pub(crate) fn settings(&self) -> anyhow::Result<BackendSettings> {
        let extra_body = match &self.extra_body {
            None => Default::default(),
            Some(text) => {
                match serde_json::from_str::<Value>(text).context("--extra-body is not JSON")? {
                    Value::Object(map) => map,
                    _ => anyhow::bail!("--extra-body must be a JSON object"),
                }
            }
        };
        let settings = BackendSettings {
            output: self.output.unwrap_or_default(),
            schema_on_tool_turns: off_or(self.no_schema_on_tool_turns, self.schema_on_tool_turns),
            max_retries: self.max_retries,
            max_output_tokens: self.max_output_tokens,
            temperature: self.temperature,
            seed: self.seed,
            parallel_tool_calls: off_or(self.no_parallel_tool_calls, self.parallel_tool_calls),
            extra_body,
            prompt_cache: off_or(self.no_prompt_cache, self.prompt_cache),
            cut_runaway: off_or(self.no_cut_runaway, self.cut_runaway),
            read_text_calls: off_or(self.no_read_text_calls, self.read_text_calls),
            connect_secs: self.connect_secs,
            preflight_secs: self.preflight_secs,
            first_byte_secs: self.first_byte_secs,
            stream_idle_secs: self.stream_idle_secs,
        };
        match settings.problems().first() {
            // Named as the flag that set it.
            Some(problem) => anyhow::bail!(
                "--{} {}",
                problem.field().replace('_', "-"),
                problem.reason()
            ),
            None => Ok(settings),
        }
    }

    /// `--base-url`.
    pub(crate) fn base_url(&self) -> Option<&str> {
        self.base_url.as_deref()
    }

    /// Whether any flag is set (they need a live backend).
    pub(crate) fn any(&self) -> bool {
        self.output.is_some()
            || self.schema_on_tool_turns.is_some()
            || self.no_schema_on_tool_turns
            || self.no_parallel_tool_calls
            || self.no_prompt_cache
            || self.no_cut_runaway
            || self.no_read_text_calls
            || self.read_text_calls.is_some()
            || self.max_retries.is_some()
            || self.max_output_tokens.is_some()
            || self.temperature.is_some()
            || self.seed.is_some()
            || self.parallel_tool_calls.is_some()
            || self.extra_body.is_some()
            || self.prompt_cache.is_some()
            || self.cut_runaway.is_some()
            || self.connect_secs.is_some()
            || self.preflight_secs.is_some()
            || self.first_byte_secs.is_some()
            || self.stream_idle_secs.is_some()
            || self.base_url.is_some()
    }
}

/// A setting's `--X BOOL`, or false with its `--no-X`.
fn off_or(off: bool, flag: Option<bool>) -> Option<bool> {
    if off { Some(false) } else { flag }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_that_cannot_be_used_is_named_as_its_flag() {
        let refused = |flags: BackendFlags| flags.settings().err().map(|e| e.to_string());
        let streamed = refused(BackendFlags {
            extra_body: Some(r#"{"stream": false, "top_k": 2}"#.into()),
            temperature: Some(7.0),
            ..BackendFlags::default()
        });
        assert_eq!(
            streamed.as_deref(),
            Some(
                "--extra-body sets stream, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)"
            )
        );
        let hot = refused(BackendFlags {
            temperature: Some(7.0),
            ..BackendFlags::default()
        });
        assert_eq!(
            hot.as_deref(),
            Some("--temperature must be between 0 and 2, not 7")
        );
        let idle = refused(BackendFlags {
            stream_idle_secs: Some(-1.0),
            ..BackendFlags::default()
        });
        assert_eq!(
            idle.as_deref(),
            Some(
                "--stream-idle-secs must be a number of seconds above 0 and at most 86400, not -1"
            )
        );
        let fine = BackendFlags {
            seed: Some(3),
            no_prompt_cache: true,
            ..BackendFlags::default()
        };
        let settings = fine.settings().ok();
        assert_eq!(settings.as_ref().and_then(|s| s.seed), Some(3));
        assert_eq!(settings.and_then(|s| s.prompt_cache), Some(false));
        let uncut = BackendFlags {
            no_cut_runaway: true,
            no_parallel_tool_calls: true,
            ..BackendFlags::default()
        };
        assert!(uncut.any());
        let settings = uncut.settings().ok();
        assert_eq!(settings.as_ref().and_then(|s| s.cut_runaway), Some(false));
        assert_eq!(settings.and_then(|s| s.parallel_tool_calls), Some(false));
    }
}
