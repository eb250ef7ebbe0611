//! [`BackendSettings`]: the request settings of a live backend in the form
//! people write them — every value optional, so that a configuration file's
//! table and command-line flags lay over each other
//! ([`BackendSettings::overlaid`]) — with their checks
//! ([`BackendSettings::problems`]) and the one conversion into the resolved
//! [`BackendOptions`] that [`connect`](super::connect) takes
//! ([`BackendSettings::options`]).
//!
//! Deserialised (unknown fields refused) it reads the `[backend]` table of
//! tribunal's `arena.toml`:
//!
//! ```
//! # use tribunal_runtime::backend::BackendSettings;
//! let table: BackendSettings = serde_json::from_value(serde_json::json!({
//!     "output": "tool",
//!     "temperature": 0,
//!     "extra_body": {"top_k": 20},
//! }))
//! .unwrap();
//! let flags = BackendSettings {
//!     temperature: Some(0.7),
//!     ..BackendSettings::default()
//! };
//! let both = table.overlaid(&flags);
//! assert!(both.problems().is_empty());
//! let options = both.options();
//! assert_eq!(options.temperature, Some(0.7));
//! assert_eq!(options.max_retries, 2, "unset: the default");
//! ```

use super::options::BackendOptions;
use super::timeouts::{MAX_TIMEOUT_SECS, Timeouts, timeout_from_secs};
use crate::output::OutputChoice;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Top-level body fields the backends own; `extra_body` may not set them
/// (the backend's value would win, or, for `stream`, the answer would not
/// parse).
pub const RESERVED_BODY_FIELDS: [&str; 6] = [
    "model",
    "messages",
    "input",
    "tools",
    "tool_choice",
    "stream",
];

/// Retries per request after the first attempt when none is set.
pub const DEFAULT_MAX_RETRIES: u32 = 2;

/// The request settings of live backends, each optional (see the
/// [module docs](self)). `Default` sets none of them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackendSettings {
    /// The output strategy. Default: auto.
    pub output: OutputChoice,
    /// Native strategy: the schema also on requests that offer tools.
    /// Default: per base URL.
    pub schema_on_tool_turns: Option<bool>,
    /// Retries per request. Default: [`DEFAULT_MAX_RETRIES`].
    pub max_retries: Option<u32>,
    /// Per-request output-token ceiling (the agent's, not the connection's:
    /// see [`Agent::with_max_output_tokens`](crate::Agent::with_max_output_tokens)).
    /// Default: the provider's.
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
    /// Tool calls written as text read as calls. Default: on for servers
    /// other than the hosted APIs (see [`OutputPlan::read_text_calls`](crate::output::OutputPlan::read_text_calls)).
    pub read_text_calls: Option<bool>,
    /// Seconds to open a connection. Default:
    /// [`DEFAULT_CONNECT_SECS`](super::timeouts::DEFAULT_CONNECT_SECS).
    pub connect_secs: Option<f64>,
    /// Seconds for the whole check before the first item. Default:
    /// [`DEFAULT_PREFLIGHT_SECS`](super::timeouts::DEFAULT_PREFLIGHT_SECS).
    pub preflight_secs: Option<f64>,
    /// Seconds from sending a request to the first byte of its answer.
    /// Default: [`DEFAULT_FIRST_BYTE_SECS`](super::timeouts::DEFAULT_FIRST_BYTE_SECS).
    pub first_byte_secs: Option<f64>,
    /// Seconds an answer may go without a byte once it started. Default:
    /// [`DEFAULT_STREAM_IDLE_SECS`](super::timeouts::DEFAULT_STREAM_IDLE_SECS).
    pub stream_idle_secs: Option<f64>,
}

/// A setting that cannot be used. Its text (`Display`) names the setting
/// first: `temperature must be between 0 and 2, not 3.5`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SettingProblem {
    /// `extra_body` sets fields the backend sends itself
    /// ([`RESERVED_BODY_FIELDS`]), named here in that list's order.
    ReservedBodyFields(Vec<&'static str>),
    /// A temperature outside 0 to 2 (the widest provider range; connecting
    /// checks the provider's own).
    Temperature(f64),
    /// `max_output_tokens` is 0.
    NoOutputTokens,
    /// A timeout (`connect_secs`, `preflight_secs`, `first_byte_secs`,
    /// `stream_idle_secs`, named here) that is not a number of seconds
    /// above 0 and at most a day.
    Timeout(&'static str, f64),
}

impl SettingProblem {
    /// The setting's field name (`extra_body`, `temperature`,
    /// `max_output_tokens`).
    pub fn field(&self) -> &'static str {
        match self {
            SettingProblem::ReservedBodyFields(_) => "extra_body",
            SettingProblem::Temperature(_) => "temperature",
            SettingProblem::NoOutputTokens => "max_output_tokens",
            SettingProblem::Timeout(field, _) => field,
        }
    }

    /// What is wrong with it, after its name.
    pub fn reason(&self) -> String {
        match self {
            SettingProblem::ReservedBodyFields(owned) => format!(
                "sets {}, which the backend itself sends (reserved: {})",
                owned.join(", "),
                RESERVED_BODY_FIELDS.join(", ")
            ),
            SettingProblem::Temperature(t) => format!("must be between 0 and 2, not {t}"),
            SettingProblem::NoOutputTokens => "must be at least 1".to_string(),
            SettingProblem::Timeout(_, secs) => format!(
                "must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECS}, not {secs}"
            ),
        }
    }

    /// The reserved fields `extra` sets, if any.
    fn of_extra_body(extra: &Map<String, Value>) -> Option<SettingProblem> {
        let owned: Vec<&'static str> = RESERVED_BODY_FIELDS
            .into_iter()
            .filter(|k| extra.contains_key(*k))
            .collect();
        (!owned.is_empty()).then_some(SettingProblem::ReservedBodyFields(owned))
    }

    /// `t`, if it is no temperature.
    fn of_temperature(t: f64) -> Option<SettingProblem> {
        (!(t.is_finite() && (0.0..=2.0).contains(&t))).then_some(SettingProblem::Temperature(t))
    }
}

impl std::fmt::Display for SettingProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field(), self.reason())
    }
}

impl std::error::Error for SettingProblem {}

/// Why an `extra_body` cannot be used, if it cannot: a key the backends own.
pub fn extra_body_problem(extra: &Map<String, Value>) -> Option<String> {
    SettingProblem::of_extra_body(extra).map(|p| p.to_string())
}

/// Why a temperature cannot be used, if it cannot: outside 0 to 2 (the widest
/// provider range; connecting checks the provider's own).
pub fn temperature_problem(t: f64) -> Option<String> {
    SettingProblem::of_temperature(t).map(|p| p.to_string())
}

/// Every setting at its default: [`BackendSettings::options`] of no settings.
impl Default for BackendOptions {
    fn default() -> Self {
        BackendSettings::default().options()
    }
}

impl BackendSettings {
    /// Every setting that cannot be used, in this order: `extra_body`,
    /// `temperature`, `max_output_tokens`, then the timeouts. Empty: all
    /// can.
    pub fn problems(&self) -> Vec<SettingProblem> {
        let no_tokens =
            (self.max_output_tokens == Some(0)).then_some(SettingProblem::NoOutputTokens);
        let timeouts = self.timeout_settings().map(|(field, secs)| {
            secs.filter(|s| timeout_from_secs(*s).is_none())
                .map(|s| SettingProblem::Timeout(field, s))
        });
        [
            SettingProblem::of_extra_body(&self.extra_body),
            self.temperature.and_then(SettingProblem::of_temperature),
            no_tokens,
        ]
        .into_iter()
        .chain(timeouts)
        .flatten()
        .collect()
    }

    /// The four timeout settings by name, in the order of [`Timeouts`].
    fn timeout_settings(&self) -> [(&'static str, Option<f64>); 4] {
        [
            ("connect_secs", self.connect_secs),
            ("preflight_secs", self.preflight_secs),
            ("first_byte_secs", self.first_byte_secs),
            ("stream_idle_secs", self.stream_idle_secs),
        ]
    }

    /// The timeouts these settings ask for, each unset (or unusable) one at
    /// its default.
    pub fn timeouts(&self) -> Timeouts {
        let default = Timeouts::default();
        let pick = |secs: Option<f64>, default| secs.and_then(timeout_from_secs).unwrap_or(default);
        Timeouts {
            connect: pick(self.connect_secs, default.connect),
            preflight: pick(self.preflight_secs, default.preflight),
            first_byte: pick(self.first_byte_secs, default.first_byte),
            stream_idle: pick(self.stream_idle_secs, default.stream_idle),
        }
    }

    /// These settings without the ones that cannot be used (unset: an
    /// `extra_body` with a problem is dropped whole), and why each cannot.
    pub fn checked(mut self) -> (BackendSettings, Vec<SettingProblem>) {
        let problems = self.problems();
        for problem in &problems {
            match problem {
                SettingProblem::ReservedBodyFields(_) => self.extra_body = Map::new(),
                SettingProblem::Temperature(_) => self.temperature = None,
                SettingProblem::NoOutputTokens => self.max_output_tokens = None,
                SettingProblem::Timeout(field, _) => match *field {
                    "connect_secs" => self.connect_secs = None,
                    "preflight_secs" => self.preflight_secs = None,
                    "first_byte_secs" => self.first_byte_secs = None,
                    _ => self.stream_idle_secs = None,
                },
            }
        }
        (self, problems)
    }

    /// The options [`connect`](super::connect) takes, each unset setting
    /// at its default (no base URL, cassette or cache set: those are the
    /// caller's). The one place settings become options:
    /// `BackendOptions::default()` is `BackendSettings::default().options()`.
    pub fn options(&self) -> BackendOptions {
        BackendOptions {
            output: self.output,
            schema_on_tool_turns: self.schema_on_tool_turns,
            max_retries: self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
            temperature: self.temperature,
            seed: self.seed,
            parallel_tool_calls: self.parallel_tool_calls,
            extra_body: self.extra_body.clone(),
            prompt_cache: self.prompt_cache.unwrap_or(true),
            cut_runaway: self.cut_runaway.unwrap_or(true),
            read_text_calls: self.read_text_calls,
            timeouts: self.timeouts(),
            base_url: None,
            record: None,
            replay: None,
            cache: None,
        }
    }

    /// The settings with every value `over` sets replacing this one's
    /// (command-line flags over a configuration file); `extra_body` objects
    /// merge key by key, `over` winning; an `auto` output sets nothing.
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
            read_text_calls: over.read_text_calls.or(self.read_text_calls),
            connect_secs: over.connect_secs.or(self.connect_secs),
            preflight_secs: over.preflight_secs.or(self.preflight_secs),
            first_byte_secs: over.first_byte_secs.or(self.first_byte_secs),
            stream_idle_secs: over.stream_idle_secs.or(self.stream_idle_secs),
        }
    }

    /// The settings that change what a model is asked, as JSON (what
    /// tribunal's config hash holds): every setting but `max_retries` and
    /// the timeouts (how hard and how patiently a request is tried) and
    /// `prompt_cache` (what it is billed);
    /// `cut_runaway` and `read_text_calls` only when set, so that
    /// identities taken before they existed stay as they were.
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
        if let (Some(cut), Value::Object(map)) = (self.cut_runaway, &mut hashed) {
            map.insert("cut_runaway".into(), json!(cut));
        }
        if let (Some(read), Value::Object(map)) = (self.read_text_calls, &mut hashed) {
            map.insert("read_text_calls".into(), json!(read));
        }
        hashed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn flags_lay_over_the_table_and_extra_bodies_merge() {
        let table = BackendSettings {
            output: OutputChoice::Native,
            temperature: Some(0.0),
            max_retries: Some(1),
            extra_body: object(json!({"top_k": 20, "min_p": 0.1})),
            ..BackendSettings::default()
        };
        let flags = BackendSettings {
            temperature: Some(0.7),
            extra_body: object(json!({"top_k": 5})),
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
    fn timeouts_lay_over_each_other_are_checked_and_stay_out_of_the_hash() {
        let table = BackendSettings {
            stream_idle_secs: Some(30.0),
            first_byte_secs: Some(0.0),
            ..BackendSettings::default()
        };
        let flags = BackendSettings {
            connect_secs: Some(2.5),
            ..BackendSettings::default()
        };
        let both = table.overlaid(&flags);
        let texts: Vec<String> = both.problems().iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            ["first_byte_secs must be a number of seconds above 0 and at most 86400, not 0"]
        );
        let (kept, _) = both.clone().checked();
        assert_eq!(kept.first_byte_secs, None);
        let timeouts = kept.options().timeouts;
        assert_eq!(timeouts.connect, std::time::Duration::from_millis(2500));
        assert_eq!(timeouts.stream_idle, std::time::Duration::from_secs(30));
        assert_eq!(timeouts.first_byte, Timeouts::default().first_byte);
        assert_eq!(both.hashed(), BackendSettings::default().hashed());
        for (field, bad) in [("preflight_secs", f64::NAN), ("stream_idle_secs", 1e300)] {
            let mut settings = BackendSettings::default();
            match field {
                "preflight_secs" => settings.preflight_secs = Some(bad),
                _ => settings.stream_idle_secs = Some(bad),
            }
            assert_eq!(settings.problems()[0].field(), field);
        }
    }

    #[test]
    fn unset_settings_are_the_default_options() {
        assert_eq!(
            BackendSettings::default().options(),
            BackendOptions::default()
        );
        assert_eq!(BackendOptions::default().max_retries, DEFAULT_MAX_RETRIES);
    }

    #[test]
    fn extra_body_may_not_set_what_the_backend_sends() {
        assert_eq!(extra_body_problem(&object(json!({"top_k": 20}))), None);
        let bad = object(json!({"stream": true, "model": "x"}));
        let problem = extra_body_problem(&bad).unwrap();
        assert!(
            problem.starts_with("extra_body sets model, stream"),
            "{problem}"
        );
    }

    #[test]
    fn every_problem_is_found_and_its_setting_dropped() {
        let settings = BackendSettings {
            max_output_tokens: Some(0),
            temperature: Some(3.5),
            seed: Some(7),
            extra_body: object(json!({"messages": [], "top_k": 1})),
            ..BackendSettings::default()
        };
        let (kept, problems) = settings.checked();
        let texts: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "extra_body sets messages, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)",
                "temperature must be between 0 and 2, not 3.5",
                "max_output_tokens must be at least 1",
            ]
        );
        assert_eq!(
            problems
                .iter()
                .map(SettingProblem::field)
                .collect::<Vec<_>>(),
            ["extra_body", "temperature", "max_output_tokens"]
        );
        assert_eq!(
            kept,
            BackendSettings {
                seed: Some(7),
                ..BackendSettings::default()
            }
        );
        assert!(temperature_problem(f64::NAN).is_some());
        assert_eq!(temperature_problem(2.0), None);
    }

    #[test]
    fn unknown_settings_are_refused_when_read() {
        let read = serde_json::from_value::<BackendSettings>(json!({"temprature": 0.5}));
        let err = read.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("unknown field `temprature`"), "{err}");
        let read = serde_json::from_value::<BackendSettings>(json!({"seed": 7, "output": "tool"}));
        assert_eq!(
            read.ok(),
            Some(BackendSettings {
                seed: Some(7),
                output: OutputChoice::Tool,
                ..BackendSettings::default()
            })
        );
    }
}
