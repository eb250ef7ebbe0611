//! [`BackendSettings`]: the request settings of a live backend in the form
//! people write them — every value optional, so that a configuration file's
//! table and command-line flags lay over each other
//! ([`BackendSettings::overlaid`]) — declared once, below: each setting's
//! field (name, type, doc) beside its [`SettingSpec`] (kind, unit, default,
//! hashed or not, in the rerun cache's key or not, flag help). The struct,
//! the overlay, the checks ([`BackendSettings::problems`]), the config
//! hash's part ([`BackendSettings::hashed`]), the rerun cache's key
//! ([`BackendSettings::cache_identity`]) and the command line's flags
//! ([`BackendSettings::SPECS`], [`BackendSettings::from_flags`]) all come
//! from that one declaration.
//!
//! Deserialised (unknown fields refused) it reads the `[backend]` table of
//! tribunal's `arena.toml`:
//!
//! ```
//! # use tribunal_runtime::BackendSettings;
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
//! assert_eq!(both.temperature, Some(0.7));
//! assert_eq!(both.max_retries(), 2, "unset: the default");
//! ```

pub(super) use super::setting_spec::{FlagValue, SettingProblem, SettingSpec, SettingValue};
use super::setting_spec::{Hashed, SettingDefault, SettingKind as Kind};
use super::timeouts::{
    DEFAULT_CONNECT_SECS, DEFAULT_FIRST_BYTE_SECS, DEFAULT_PREFLIGHT_SECS,
    DEFAULT_STREAM_IDLE_SECS, Timeouts, timeout_from_secs,
};
use crate::output::OutputChoice;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Retries per request after the first attempt when none is set.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Whether requests carry prompt-cache breakpoints when unset.
const DEFAULT_PROMPT_CACHE: bool = true;
/// Whether a runaway turn is cut when unset.
const DEFAULT_CUT_RUNAWAY: bool = true;

/// Declares the settings: each one's doc, field and [`SettingSpec`], once.
macro_rules! settings {
    ($( $(#[doc = $doc:literal])* $name:ident: $ty:ty => $spec:expr; )*) => {
        /// The request settings of live backends, each optional (see the
        /// [`BackendSettings::overlaid`] and [`BackendSettings::SPECS`]). `Default` sets none of them.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct BackendSettings {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl BackendSettings {
            #[doc(hidden)] // the CLI's and lint's; no promise
            /// Every setting's declaration, in the order of the fields.
            pub const SPECS: &'static [SettingSpec] = &[ $( $spec.named(stringify!($name)), )* ];

            /// Each setting's spec beside its value, in the order of
            /// [`SPECS`](Self::SPECS): what every derived operation walks.
            fn each<R>(&self, mut f: impl FnMut(&'static SettingSpec, &dyn Setting) -> R) -> Vec<R> {
                let mut specs = Self::SPECS.iter();
                let mut out = Vec::with_capacity(Self::SPECS.len());
                $( if let Some(spec) = specs.next() { out.push(f(spec, &self.$name)); } )*
                out
            }

            /// The settings with every value `over` sets replacing this
            /// one's (command-line flags over a configuration file); each
            /// kind lays over as its kind says (`extra_body`
            /// objects merge key by key, `over` winning; an `auto` output
            /// sets nothing).
            pub fn overlaid(&self, over: &BackendSettings) -> BackendSettings {
                BackendSettings {
                    $( $name: SettingValue::overlaid(&self.$name, &over.$name), )*
                }
            }

            #[doc(hidden)] // the CLI's and lint's; no promise
            /// These settings without the ones that cannot be used (each
            /// back to unset: an `extra_body` with a problem is dropped
            /// whole), and why each cannot.
            pub fn checked(mut self) -> (BackendSettings, Vec<SettingProblem>) {
                let problems = self.problems();
                $(
                    if problems.iter().any(|p| p.field() == stringify!($name)) {
                        self.$name = <$ty>::default();
                    }
                )*
                (self, problems)
            }

            #[doc(hidden)] // the CLI's and lint's; no promise
            /// The settings a command line gave, by name: each value of the
            /// kind its spec declares. Errors: an unknown name, or a value
            /// that cannot be read (an `extra_body` that is no JSON object),
            /// named as its setting.
            pub fn from_flags(
                values: impl IntoIterator<Item = (&'static str, FlagValue)>,
            ) -> Result<BackendSettings, SettingProblem> {
                let mut settings = BackendSettings::default();
                for (name, value) in values {
                    match name {
                        $(
                            stringify!($name) => {
                                settings.$name = <$ty as SettingValue>::from_flag(value)
                                    .map_err(|reason| SettingProblem::new(stringify!($name), reason))?;
                            }
                        )*
                        _ => return Err(SettingProblem::new(name, "is no backend setting".into())),
                    }
                }
                Ok(settings)
            }
        }
    };
}

/// A setting's value behind `dyn`, so that the derived operations walk
/// every field in one loop.
trait Setting {
    fn is_set(&self) -> bool;
    fn problem(&self, spec: &SettingSpec) -> Option<String>;
    fn to_json(&self) -> Value;
}

impl<T: SettingValue> Setting for T {
    fn is_set(&self) -> bool {
        SettingValue::is_set(self)
    }
    fn problem(&self, spec: &SettingSpec) -> Option<String> {
        SettingValue::problem(self, spec)
    }
    fn to_json(&self) -> Value {
        SettingValue::to_json(self)
    }
}

settings! {
    /// The output strategy: `auto`, `native`, `tool` or `prompt`. Default:
    /// auto (native on the hosted OpenAI and Anthropic APIs, tool on any
    /// other base URL; see [`resolve_plan`](super::resolve_plan)).
    output: OutputChoice => SettingSpec::new(
        Kind::Choice {
            what: "output strategy",
            names: &["auto", "native", "tool", "prompt"],
        },
        "STRATEGY",
        "Output strategy: auto, native, tool or prompt.",
    )
    .default(SettingDefault::Empty)
    .planned()
    .long_help(
        "Output strategy: auto (default: native on the hosted OpenAI and Anthropic APIs, tool on any other base URL), native, tool or prompt.",
    );
    /// Native strategy: the schema also on requests that offer tools.
    /// Default: per base URL (yes on the hosted APIs, no elsewhere).
    schema_on_tool_turns: Option<bool> => SettingSpec::new(
        Kind::Bool,
        "BOOL",
        "Native strategy: also send the schema on requests that offer tools.",
    )
    .default(SettingDefault::PerBaseUrl)
    .planned()
    .long_help(
        "Native strategy: also send the schema on requests that offer tools (default: yes on the hosted APIs, no elsewhere).",
    );
    /// Retries per request after the first attempt. Default:
    /// [`DEFAULT_MAX_RETRIES`]. Not hashed: retrying harder changes how
    /// hard a request is tried, not what it asks.
    max_retries: Option<u32> => SettingSpec::new(
        Kind::Count { min: 0 },
        "N",
        "Retries per request after the first attempt (default 2).",
    )
    .default(SettingDefault::Count(DEFAULT_MAX_RETRIES))
    .hashed(Hashed::Never);
    /// Per-request output-token ceiling (the agent's, not the connection's:
    /// see [`Agent::with_max_output_tokens`](crate::Agent::with_max_output_tokens)).
    /// Default: the provider's.
    max_output_tokens: Option<u32> => SettingSpec::new(
        Kind::Count { min: 1 },
        "N",
        "Per-request output-token ceiling.",
    )
    .unit("tokens")
    .budget();
    /// Sampling temperature, 0 to 2 (connecting checks the provider's own
    /// range). Default: the provider's.
    temperature: Option<f64> => SettingSpec::new(
        Kind::Number { min: 0.0, max: 2.0 },
        "T",
        "Sampling temperature.",
    )
    .cached();
    /// Nucleus sampling: only the most likely tokens whose probabilities
    /// add up to this share are drawn from, above 0 and at most 1. Default:
    /// the provider's.
    top_p: Option<f64> => SettingSpec::new(
        Kind::Number { min: 0.0, max: 1.0 },
        "P",
        "Nucleus sampling: the share of likeliest tokens drawn from.",
    )
    .hashed(Hashed::WhenSet)
    .cached();
    /// Sampling seed (OpenAI Chat Completions and compatible servers only).
    /// Default: none.
    seed: Option<i64> => SettingSpec::new(
        Kind::Integer,
        "N",
        "Sampling seed (openai-chat and compatible servers).",
    )
    .cached();
    /// Whether the model may call several tools in one turn. Default: off
    /// on the OpenAI APIs (strict tools and parallel calls don't mix), the
    /// provider's on Anthropic.
    parallel_tool_calls: Option<bool> => SettingSpec::new(
        Kind::Bool,
        "BOOL",
        "Whether the model may call several tools in one turn.",
    )
    .cached();
    /// Extra top-level request-body fields merged into every request, e.g.
    /// `{"top_k": 20}` or `{"output_config": {"effort": "low"}}`. Objects
    /// are merged key by key; where both set the same value the backend's
    /// own field wins; none of [`RESERVED_BODY_FIELDS`](crate::backend::RESERVED_BODY_FIELDS). Default: none.
    extra_body: Map<String, Value> => SettingSpec::new(
        Kind::JsonObject,
        "JSON",
        "A JSON object merged into every request body, e.g. '{\"top_k\": 20}'.",
    )
    .default(SettingDefault::Empty)
    .cached();
    /// Whether requests mark their stable prefix and latest message for the
    /// provider's prompt cache (Anthropic `cache_control` breakpoints; the
    /// OpenAI APIs cache prefixes by themselves). It changes what a request
    /// is billed, never its answer, so it is neither hashed nor in the
    /// cache key. Default: on.
    prompt_cache: Option<bool> => SettingSpec::new(
        Kind::Bool,
        "BOOL",
        "Whether requests mark their prefix for the provider's prompt cache.",
    )
    .default(SettingDefault::Bool(DEFAULT_PROMPT_CACHE))
    .hashed(Hashed::Never)
    .off_help("send no prompt-cache breakpoints")
    .long_help(
        "Whether requests mark their prefix for the provider's prompt cache (Anthropic `cache_control` breakpoints; default: yes).",
    );
    /// Whether answers are streamed so that a turn that runs away — one
    /// passage over and over, or a long blank stretch — is cut where it
    /// starts instead of paid for up to the output limit
    /// (the runaway guard); a cut turn stops
    /// with [`StopReason::Runaway`](crate::conversation::StopReason::Runaway)
    /// and its usage is an estimate. A cut turn is another answer: hashed
    /// (when set) and in the cache key. Default: on.
    cut_runaway: Option<bool> => SettingSpec::new(
        Kind::Bool,
        "BOOL",
        "Whether a turn that repeats itself is cut where it began (default: yes).",
    )
    .default(SettingDefault::Bool(DEFAULT_CUT_RUNAWAY))
    .hashed(Hashed::WhenSet)
    .cached()
    .off_help("never cut a turn that repeats itself")
    .long_help(
        "Whether answers stream so that a turn repeating itself (or writing a long blank stretch) is cut there, not paid for up to the output limit (default: yes).",
    );
    /// Whether a tool call the model wrote into its text is read as a call
    /// when the server returned none. Default: per base URL (yes on
    /// servers other than the hosted OpenAI and Anthropic APIs; see
    /// [`OutputPlan::read_text_calls`](crate::output::OutputPlan::read_text_calls)).
    read_text_calls: Option<bool> => SettingSpec::new(
        Kind::Bool,
        "BOOL",
        "Whether a tool call written as text is read as a call (default: yes off the hosted APIs).",
    )
    .default(SettingDefault::PerBaseUrl)
    .planned()
    .hashed(Hashed::WhenSet)
    .off_help("take only the calls the server returns")
    .long_help(
        "Whether a tool call the model wrote into its text (a JSON object with the tool's `name` and `arguments`, bare, fenced or in `<tool_call>` tags) is read as a call when the server returned none. Default: yes for any server but the hosted OpenAI and Anthropic APIs.",
    );
    /// Seconds to open a connection. Default:
    /// [`DEFAULT_CONNECT_SECS`](super::timeouts::DEFAULT_CONNECT_SECS).
    connect_secs: Option<f64> => SettingSpec::new(
        Kind::Seconds,
        "S",
        "Seconds to open a connection to the model's server (default 10).",
    )
    .unit("seconds")
    .default(SettingDefault::Seconds(DEFAULT_CONNECT_SECS))
    .hashed(Hashed::Never);
    /// Seconds for the whole check before the first item. Default:
    /// [`DEFAULT_PREFLIGHT_SECS`](super::timeouts::DEFAULT_PREFLIGHT_SECS).
    preflight_secs: Option<f64> => SettingSpec::new(
        Kind::Seconds,
        "S",
        "Seconds for the check before the first item, `GET /models` (default 15).",
    )
    .unit("seconds")
    .default(SettingDefault::Seconds(DEFAULT_PREFLIGHT_SECS))
    .hashed(Hashed::Never);
    /// Seconds from sending a request to the first byte of its answer.
    /// Default: [`DEFAULT_FIRST_BYTE_SECS`](super::timeouts::DEFAULT_FIRST_BYTE_SECS).
    first_byte_secs: Option<f64> => SettingSpec::new(
        Kind::Seconds,
        "S",
        "Seconds from a request to the first byte of its answer (default 300).",
    )
    .unit("seconds")
    .default(SettingDefault::Seconds(DEFAULT_FIRST_BYTE_SECS))
    .hashed(Hashed::Never)
    .long_help(
        "Seconds from sending a request to the first byte of its answer: a busy local server or a reasoning model may take minutes (default 300).",
    );
    /// Seconds an answer may go without a byte once it started. Default:
    /// [`DEFAULT_STREAM_IDLE_SECS`](super::timeouts::DEFAULT_STREAM_IDLE_SECS).
    stream_idle_secs: Option<f64> => SettingSpec::new(
        Kind::Seconds,
        "S",
        "Seconds an answer may go without a byte once it started (default 60).",
    )
    .unit("seconds")
    .default(SettingDefault::Seconds(DEFAULT_STREAM_IDLE_SECS))
    .hashed(Hashed::Never)
    .long_help(
        "Seconds an answer may go without a byte once it started before it is cut and asked again (default 60).",
    );
}

impl BackendSettings {
    #[doc(hidden)] // the CLI's and lint's; no promise
    /// Every setting that cannot be used, in the order of the
    /// declaration. Empty: all can.
    pub fn problems(&self) -> Vec<SettingProblem> {
        self.each(|spec, value| {
            value
                .problem(spec)
                .map(|reason| SettingProblem::new(spec.name, reason))
        })
        .into_iter()
        .flatten()
        .collect()
    }

    #[doc(hidden)] // the CLI's and lint's; no promise
    /// Why setting `name` cannot be used, if it cannot.
    pub fn problem_of(&self, name: &str) -> Option<SettingProblem> {
        self.problems().into_iter().find(|p| p.field() == name)
    }

    /// The settings that change what a model is asked, as JSON (what
    /// tribunal's config hash holds): those declared [`Hashed::Always`],
    /// and those declared [`Hashed::WhenSet`] when set.
    pub fn hashed(&self) -> Value {
        let entries = self.each(|spec, value| match spec.hashed {
            Hashed::Always => Some((spec.name, value.to_json())),
            Hashed::WhenSet if value.is_set() => Some((spec.name, value.to_json())),
            Hashed::WhenSet | Hashed::Never => None,
        });
        Value::Object(
            entries
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// The settings that key the rerun cache (those declared `cached`),
    /// each unset one as its default: the cache key's part beside the
    /// backend, model, base URL and output plan. An unset setting hashed
    /// only when set ([`Hashed::WhenSet`]) that has no default of its own
    /// is left out, as the hash leaves it out: so a setting added later
    /// keys no existing cache entry anew.
    pub fn cache_identity(&self) -> Map<String, Value> {
        self.each(|spec, value| {
            spec.cached
                .then(|| {
                    let resolved = match spec.default.to_json() {
                        Some(default) if !value.is_set() => default,
                        None if !value.is_set() && spec.hashed == Hashed::WhenSet => return None,
                        _ => value.to_json(),
                    };
                    Some((spec.name.to_string(), resolved))
                })
                .flatten()
        })
        .into_iter()
        .flatten()
        .collect()
    }

    /// Retries per request: [`max_retries`](Self::max_retries), else
    /// [`DEFAULT_MAX_RETRIES`].
    pub fn max_retries(&self) -> u32 {
        self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
    }

    /// Whether requests carry prompt-cache breakpoints (default: yes).
    pub fn prompt_cache(&self) -> bool {
        self.prompt_cache.unwrap_or(DEFAULT_PROMPT_CACHE)
    }

    /// Whether a runaway turn is cut (default: yes).
    pub fn cut_runaway(&self) -> bool {
        self.cut_runaway.unwrap_or(DEFAULT_CUT_RUNAWAY)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::setting_spec::SettingKind;
    use serde_json::json;

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
        assert_eq!(both.max_retries(), 1);
        assert_eq!(both.temperature, Some(0.7));
        // The hash sees the temperature but not the retries, nor caching.
        let mut retried = both.clone();
        retried.max_retries = Some(9);
        assert_eq!(both.hashed(), retried.hashed());
        let uncached = both.overlaid(&BackendSettings {
            prompt_cache: Some(false),
            ..BackendSettings::default()
        });
        assert!(!uncached.prompt_cache());
        assert!(both.prompt_cache(), "on by default");
        assert_eq!(both.hashed(), uncached.hashed());
        assert_ne!(both.hashed(), table.hashed());
        // Cutting runaway turns is on by default and, set, changes the hash.
        assert!(both.cut_runaway());
        let uncut = both.overlaid(&BackendSettings {
            cut_runaway: Some(false),
            ..BackendSettings::default()
        });
        assert!(!uncut.cut_runaway());
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
        let timeouts = kept.timeouts();
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
    fn the_declaration_is_the_struct_and_keeps_the_identities_taken_before_it() {
        // One spec per field, in the fields' order.
        let fields = match serde_json::to_value(BackendSettings::default()) {
            Ok(Value::Object(map)) => map.keys().cloned().collect::<Vec<_>>(),
            other => panic!("not an object: {other:?}"),
        };
        let names: Vec<&str> = BackendSettings::SPECS.iter().map(|s| s.name).collect();
        assert_eq!(fields, names);
        // The hash and the cache key of unset settings, as they were written
        // out by hand before the declaration (results files and rerun
        // caches keep matching).
        assert_eq!(
            BackendSettings::default().hashed(),
            json!({
                "output": "auto",
                "schema_on_tool_turns": null,
                "max_output_tokens": null,
                "temperature": null,
                "seed": null,
                "parallel_tool_calls": null,
                "extra_body": {},
            })
        );
        assert_eq!(
            Value::Object(BackendSettings::default().cache_identity()),
            json!({
                "temperature": null,
                "seed": null,
                "parallel_tool_calls": null,
                "extra_body": {},
                "cut_runaway": true,
            })
        );
        let set = BackendSettings {
            cut_runaway: Some(false),
            read_text_calls: Some(true),
            temperature: Some(0.0),
            top_p: Some(0.5),
            ..BackendSettings::default()
        };
        // A setting added later (top_p) keys the hash and the cache only
        // when set: the identities above stay as they were.
        assert_eq!(set.hashed()["top_p"], 0.5);
        assert_eq!(set.cache_identity()["top_p"], 0.5);
        assert_eq!(set.hashed()["cut_runaway"], false);
        assert_eq!(set.hashed()["read_text_calls"], true);
        assert_eq!(set.cache_identity()["cut_runaway"], false);
        assert_eq!(set.cache_identity()["temperature"], 0.0);
        assert_eq!(
            BackendSettings::default().max_retries(),
            DEFAULT_MAX_RETRIES
        );
    }

    #[test]
    fn a_choice_names_what_its_type_parses_and_refuses_as_it_does() {
        let spec = BackendSettings::SPECS
            .iter()
            .find(|s| s.name == "output")
            .copied();
        let kind = spec.map(|s| s.kind);
        let Some(SettingKind::Choice { names, .. }) = kind else {
            panic!("output is no choice: {kind:?}");
        };
        for name in names {
            assert!(name.parse::<OutputChoice>().is_ok(), "{name}");
        }
        let refused = "grammar"
            .parse::<OutputChoice>()
            .map(drop)
            .map_err(|e| e.to_string());
        assert_eq!(kind.map(|k| k.check_choice("grammar")), Some(refused));
    }

    #[test]
    fn flags_are_read_by_name_and_kind() {
        let read = BackendSettings::from_flags([
            ("temperature", FlagValue::Number(0.5)),
            ("cut_runaway", FlagValue::Bool(false)),
            ("output", FlagValue::Text("tool".into())),
            ("extra_body", FlagValue::Text(r#"{"top_k": 3}"#.into())),
        ]);
        assert_eq!(
            read,
            Ok(BackendSettings {
                temperature: Some(0.5),
                cut_runaway: Some(false),
                output: OutputChoice::Tool,
                extra_body: object(json!({"top_k": 3})),
                ..BackendSettings::default()
            })
        );
        let text = |values: Vec<(&'static str, FlagValue)>| {
            BackendSettings::from_flags(values).map_err(|p| p.to_string())
        };
        assert_eq!(
            text(vec![("extra_body", FlagValue::Text("[1]".into()))]),
            Err("extra_body must be a JSON object".to_string())
        );
        assert!(
            text(vec![("extra_body", FlagValue::Text("nope".into()))])
                .is_err_and(|e| e.starts_with("extra_body is not JSON: "))
        );
        assert_eq!(
            text(vec![("temprature", FlagValue::Number(1.0))]),
            Err("temprature is no backend setting".to_string())
        );
        assert!(text(vec![("seed", FlagValue::Bool(true))]).is_err());
    }

    #[test]
    fn extra_body_may_not_set_what_the_backend_sends() {
        let fine = BackendSettings {
            extra_body: object(json!({"top_k": 20})),
            ..BackendSettings::default()
        };
        assert_eq!(fine.problem_of("extra_body"), None);
        let bad = BackendSettings {
            extra_body: object(json!({"stream": true, "model": "x"})),
            ..BackendSettings::default()
        };
        let problem = bad.problem_of("extra_body").map(|p| p.to_string());
        assert!(
            problem
                .as_deref()
                .is_some_and(|p| p.starts_with("extra_body sets model, stream")),
            "{problem:?}"
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
                "max_output_tokens must be at least 1",
                "temperature must be between 0 and 2, not 3.5",
                "extra_body sets messages, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)",
            ]
        );
        assert_eq!(
            problems
                .iter()
                .map(SettingProblem::field)
                .collect::<Vec<_>>(),
            ["max_output_tokens", "temperature", "extra_body"]
        );
        assert_eq!(
            kept,
            BackendSettings {
                seed: Some(7),
                ..BackendSettings::default()
            }
        );
        let hot = |t| BackendSettings {
            temperature: Some(t),
            ..BackendSettings::default()
        };
        assert_eq!(
            hot(f64::NAN)
                .problem_of("temperature")
                .map(|p| p.to_string()),
            Some("temperature must be between 0 and 2, not NaN".to_string())
        );
        assert_eq!(hot(2.0).problem_of("temperature"), None);
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
