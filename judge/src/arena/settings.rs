//! [`BackendSettings`]: the `[backend]` table of `arena.toml` — the output
//! strategy and the request settings of live backends — and how command-line
//! flags lay over it.
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
//! ```
//!
//! Everything but `max_retries` and `prompt_cache` enters the config hash
//! (with the output plan the backend resolved): retrying harder changes how
//! hard we try, not what is asked, so `--retry-errors --max-retries 5` may
//! continue a results file; prompt-cache breakpoints change what a request
//! is billed, not what the model is asked or answers, so runs with caching
//! on and off are one configuration (and `compare` sets their costs side
//! by side). `cut_runaway` enters the hash only when set: a cut turn is
//! another answer.
//! Mock runs ignore the table.

use crate::problem::Problem;
use serde::Deserialize;
use serde_json::{Map, Value, json};
pub use tribunal_runtime::backend::config::{RESERVED_BODY_FIELDS, extra_body_problem};
use tribunal_runtime::{BackendOptions, OutputChoice};

/// The request settings of live backends (see the [module docs](self)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackendSettings {
    /// The output strategy. Default: auto.
    pub output: OutputChoice,
    /// Native strategy: the schema also on requests that offer tools.
    /// Default: per base URL.
    pub schema_on_tool_turns: Option<bool>,
    /// Retries per request. Default: 2.
    pub max_retries: Option<u32>,
    /// Per-request output-token ceiling. Default: the provider's.
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature. Default: the provider's.
    pub temperature: Option<f64>,
    /// Sampling seed. Default: none.
    pub seed: Option<i64>,
    /// Parallel tool calls. Default: off on OpenAI, the provider's on Anthropic.
    pub parallel_tool_calls: Option<bool>,
    /// Extra top-level request-body fields. Default: none.
    pub extra_body: Map<String, Value>,
    /// Prompt-cache breakpoints. Default: on.
    pub prompt_cache: Option<bool>,
    /// Streamed answers, a runaway turn cut. Default: on.
    pub cut_runaway: Option<bool>,
}

impl BackendSettings {
    /// The options [`tribunal_runtime::connect`] takes (no cassette set).
    pub fn options(&self) -> BackendOptions {
        let defaults = BackendOptions::default();
        BackendOptions {
            output: self.output,
            schema_on_tool_turns: self.schema_on_tool_turns,
            max_retries: self.max_retries.unwrap_or(defaults.max_retries),
            temperature: self.temperature,
            seed: self.seed,
            parallel_tool_calls: self.parallel_tool_calls,
            extra_body: self.extra_body.clone(),
            prompt_cache: self.prompt_cache.unwrap_or(defaults.prompt_cache),
            cut_runaway: self.cut_runaway.unwrap_or(defaults.cut_runaway),
            ..defaults
        }
    }

    /// The settings with every value `over` sets replacing this one's
    /// (command-line flags over `arena.toml`); `extra_body` objects merge key
    /// by key, `over` winning.
    pub fn overlaid(&self, over: &BackendSettings) -> BackendSettings {
        let mut extra_body = self.extra_body.clone();
        extra_body.extend(over.extra_body.clone());
        BackendSettings {
            output: if over.output == OutputChoice::Auto {
                self.output
            } else {
                over.output
            },
            schema_on_tool_turns: over.schema_on_tool_turns.or(self.schema_on_tool_turns),
            max_retries: over.max_retries.or(self.max_retries),
            max_output_tokens: over.max_output_tokens.or(self.max_output_tokens),
            temperature: over.temperature.or(self.temperature),
            seed: over.seed.or(self.seed),
            parallel_tool_calls: over.parallel_tool_calls.or(self.parallel_tool_calls),
            extra_body,
            prompt_cache: over.prompt_cache.or(self.prompt_cache),
            cut_runaway: over.cut_runaway.or(self.cut_runaway),
        }
    }

    /// What enters the config hash: every setting but `max_retries` and
    /// `prompt_cache`; `cut_runaway` when set (see the [module docs](self)).
    pub fn hashed(&self) -> Value {
        let mut hashed = json!({
            "output": self.output.as_str(),
            "schema_on_tool_turns": self.schema_on_tool_turns,
            "max_output_tokens": self.max_output_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "parallel_tool_calls": self.parallel_tool_calls,
            "extra_body": self.extra_body,
        });
        // Only when set, so that hashes of configurations written before
        // the setting existed stay as they were.
        if let (Some(cut), Value::Object(map)) = (self.cut_runaway, &mut hashed) {
            map.insert("cut_runaway".into(), json!(cut));
        }
        hashed
    }
}

/// Why a temperature cannot be used, if it cannot: outside 0 to 2 (the widest
/// provider range; connecting checks the provider's own).
pub fn temperature_problem(t: f64) -> Option<String> {
    (!(t.is_finite() && (0.0..=2.0).contains(&t)))
        .then(|| format!("temperature must be between 0 and 2, not {t}"))
}

/// `[backend]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackendToml {
    output: Option<OutputChoice>,
    schema_on_tool_turns: Option<bool>,
    max_retries: Option<u32>,
    max_output_tokens: Option<toml::Spanned<u32>>,
    temperature: Option<toml::Spanned<f64>>,
    seed: Option<i64>,
    parallel_tool_calls: Option<bool>,
    extra_body: Option<toml::Spanned<toml::Table>>,
    prompt_cache: Option<bool>,
    cut_runaway: Option<bool>,
}

impl BackendToml {
    /// The settings; each value that cannot be used is a problem at its
    /// line (`line_at` maps a byte offset of `arena.toml` to its line).
    pub(crate) fn settings(
        self,
        file: &str,
        line_at: &dyn Fn(usize) -> usize,
        problems: &mut Vec<Problem>,
    ) -> BackendSettings {
        let mut at = |offset: usize, message: String| {
            problems.push(Problem::at(file, line_at(offset), message))
        };
        let max_output_tokens = self.max_output_tokens.and_then(|m| {
            let start = m.span().start;
            match m.into_inner() {
                0 => {
                    at(
                        start,
                        "backend.max_output_tokens must be at least 1".to_string(),
                    );
                    None
                }
                n => Some(n),
            }
        });
        let temperature = self.temperature.and_then(|t| {
            let start = t.span().start;
            let value = t.into_inner();
            match temperature_problem(value) {
                None => Some(value),
                Some(problem) => {
                    at(start, format!("backend.{problem}"));
                    None
                }
            }
        });
        let extra_body = match self.extra_body {
            None => Map::new(),
            Some(table) => {
                let start = table.span().start;
                match serde_json::to_value(table.into_inner()) {
                    Ok(Value::Object(map)) => match extra_body_problem(&map) {
                        Some(problem) => {
                            at(start, format!("backend.{problem}"));
                            Map::new()
                        }
                        None => map,
                    },
                    _ => {
                        at(start, "backend.extra_body must be a table".to_string());
                        Map::new()
                    }
                }
            }
        };
        BackendSettings {
            output: self.output.unwrap_or_default(),
            schema_on_tool_turns: self.schema_on_tool_turns,
            max_retries: self.max_retries,
            max_output_tokens,
            temperature,
            seed: self.seed,
            parallel_tool_calls: self.parallel_tool_calls,
            extra_body,
            prompt_cache: self.prompt_cache,
            cut_runaway: self.cut_runaway,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_lay_over_the_table_and_extra_bodies_merge() {
        let table = BackendSettings {
            output: OutputChoice::Native,
            temperature: Some(0.0),
            max_retries: Some(1),
            extra_body: json!({"top_k": 20, "min_p": 0.1})
                .as_object()
                .unwrap()
                .clone(),
            ..BackendSettings::default()
        };
        let flags = BackendSettings {
            temperature: Some(0.7),
            extra_body: json!({"top_k": 5}).as_object().unwrap().clone(),
            ..BackendSettings::default()
        };
        let both = table.overlaid(&flags);
        assert_eq!(both.output, OutputChoice::Native, "auto leaves the table's");
        assert_eq!(both.temperature, Some(0.7));
        assert_eq!(both.max_retries, Some(1));
        assert_eq!(
            Value::Object(both.extra_body.clone()),
            json!({"top_k": 5, "min_p": 0.1})
        );
        let options = both.options();
        assert_eq!(options.max_retries, 1);
        assert_eq!(options.temperature, Some(0.7));
        // The hash sees the temperature but not the retries, nor caching.
        let mut retried = both.clone();
        retried.max_retries = Some(9);
        assert_eq!(both.hashed(), retried.hashed());
        let uncached = both.overlaid(&BackendSettings {
            prompt_cache: Some(false),
            ..BackendSettings::default()
        });
        assert!(!uncached.options().prompt_cache);
        assert!(both.options().prompt_cache, "on by default");
        assert_eq!(both.hashed(), uncached.hashed());
        assert_ne!(both.hashed(), table.hashed());
        // Cutting runaway turns is on by default and, set, changes the hash.
        assert!(both.options().cut_runaway);
        let uncut = both.overlaid(&BackendSettings {
            cut_runaway: Some(false),
            ..BackendSettings::default()
        });
        assert!(!uncut.options().cut_runaway);
        assert_ne!(both.hashed(), uncut.hashed());
    }

    #[test]
    fn extra_body_may_not_set_what_the_backend_sends() {
        let ok = json!({"top_k": 20}).as_object().unwrap().clone();
        assert_eq!(extra_body_problem(&ok), None);
        let bad = json!({"stream": true, "model": "x"})
            .as_object()
            .unwrap()
            .clone();
        let problem = extra_body_problem(&bad).unwrap();
        assert!(
            problem.starts_with("extra_body sets model, stream"),
            "{problem}"
        );
    }
}
