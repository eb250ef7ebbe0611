//! What one backend setting is, apart from its value: [`SettingSpec`] (its
//! name, kind, unit, default, whether it enters the config hash and the
//! rerun cache's key, and its help), and [`SettingValue`], what a setting's
//! field type does in each place a setting goes (laid over another, checked,
//! written into the hash, read from a flag). The settings themselves are
//! declared once, in [`settings`](super::settings); everything else is
//! derived from the declaration.

use super::timeouts::{MAX_TIMEOUT_SECS, timeout_from_secs};
use crate::output::OutputChoice;
use serde_json::{Map, Value};

/// What a setting's value is: how a flag reads it and how it is checked.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum SettingKind {
    /// `true` or `false`; as flags, `--name BOOL` and `--no-name`.
    Bool,
    /// A whole number of at least `min`.
    Count {
        /// The smallest value taken.
        min: u32,
    },
    /// A signed whole number.
    Integer,
    /// A number from `min` to `max`.
    Number {
        /// The smallest value taken.
        min: f64,
        /// The largest value taken.
        max: f64,
    },
    /// Seconds, above 0 and at most a day
    /// ([`MAX_TIMEOUT_SECS`](super::timeouts::MAX_TIMEOUT_SECS)).
    Seconds,
    /// One of a few names.
    Choice {
        /// What the names are names of (`output strategy`).
        what: &'static str,
        /// The names.
        names: &'static [&'static str],
    },
    /// A JSON object.
    JsonObject,
}

/// Whether a setting enters tribunal's config hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hashed {
    /// Always, unset ones as their unset value.
    Always,
    /// Only when set, so that identities taken before the setting existed
    /// stay as they were.
    WhenSet,
    /// Never: it changes how hard or how patiently a request is tried, or
    /// what it is billed, not what the model is asked.
    Never,
}

/// The value an unset setting takes.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum SettingDefault {
    /// The provider's (or the server's) own: nothing is sent.
    Provider,
    /// Decided per base URL (the hosted APIs or another server).
    PerBaseUrl,
    /// This truth value.
    Bool(bool),
    /// This whole number.
    Count(u32),
    /// This many seconds.
    Seconds(u64),
    /// The setting's own "none" (an empty object, `auto`).
    Empty,
}

impl SettingDefault {
    /// The value an unset setting resolves to, as JSON (what the rerun
    /// cache's key writes for it); `None` where the setting's own unset
    /// value says it (the provider or the base URL decides, or none).
    pub fn to_json(self) -> Option<Value> {
        match self {
            SettingDefault::Bool(b) => Some(Value::Bool(b)),
            SettingDefault::Count(n) => Some(Value::from(n)),
            SettingDefault::Seconds(s) => Some(Value::from(s)),
            SettingDefault::Provider | SettingDefault::PerBaseUrl | SettingDefault::Empty => None,
        }
    }
}

impl std::fmt::Display for SettingDefault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingDefault::Provider => f.write_str("the provider's"),
            SettingDefault::PerBaseUrl => f.write_str("per base URL"),
            SettingDefault::Bool(true) => f.write_str("yes"),
            SettingDefault::Bool(false) => f.write_str("no"),
            SettingDefault::Count(n) => write!(f, "{n}"),
            SettingDefault::Seconds(s) => write!(f, "{s} s"),
            SettingDefault::Empty => f.write_str("none"),
        }
    }
}

/// Which group of a command's help a setting's flag belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingGroup {
    /// What a run may spend.
    Budget,
    /// How requests are made.
    Request,
}

/// One setting's declaration, apart from its field: built with the `const`
/// methods below in the `settings!` declaration of [`BackendSettings`](crate::backend::BackendSettings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SettingSpec {
    /// The field's name, as `arena.toml` writes it (`stream_idle_secs`);
    /// its flag is the name with dashes (`--stream-idle-secs`).
    pub name: &'static str,
    /// What its value is.
    pub kind: SettingKind,
    /// The placeholder of its value in help (`N`, `S`, `BOOL`).
    pub value_name: &'static str,
    /// The unit of its value, if it has one (`seconds`, `tokens`).
    pub unit: Option<&'static str>,
    /// What it is when unset.
    pub default: SettingDefault,
    /// Whether it enters the config hash.
    pub hashed: Hashed,
    /// Whether it enters the rerun cache's key (beside the backend, model,
    /// base URL and output plan, which always do).
    pub cached: bool,
    /// Whether it is resolved into the output plan (with the base URL),
    /// which keys the rerun cache and a cassette and enters the hash.
    pub planned: bool,
    /// The help group of its flag.
    pub group: SettingGroup,
    /// Its flag's one-line help (`-h`).
    pub help: &'static str,
    /// Its flag's longer help (`--help`), when the line is not enough.
    pub long_help: Option<&'static str>,
    /// For a [`SettingKind::Bool`]: what its `--no-` flag does, after
    /// `--name false`.
    pub off_help: Option<&'static str>,
}

impl SettingSpec {
    /// A setting of `kind` whose flag shows `value_name`, with its one-line
    /// help; unset it is the provider's, it enters the hash but not the
    /// cache key, and its flag is a request one.
    pub(crate) const fn new(
        kind: SettingKind,
        value_name: &'static str,
        help: &'static str,
    ) -> Self {
        SettingSpec {
            name: "",
            kind,
            value_name,
            unit: None,
            default: SettingDefault::Provider,
            hashed: Hashed::Always,
            cached: false,
            planned: false,
            group: SettingGroup::Request,
            help,
            long_help: None,
            off_help: None,
        }
    }

    /// Named `name` (the declaration's field).
    pub(crate) const fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// Its value's unit.
    pub(crate) const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// Unset, it is `default`.
    pub(crate) const fn default(mut self, default: SettingDefault) -> Self {
        self.default = default;
        self
    }

    /// Whether it enters the hash.
    pub(crate) const fn hashed(mut self, hashed: Hashed) -> Self {
        self.hashed = hashed;
        self
    }

    /// It enters the rerun cache's key.
    pub(crate) const fn cached(mut self) -> Self {
        self.cached = true;
        self
    }

    /// It is resolved into the output plan.
    pub(crate) const fn planned(mut self) -> Self {
        self.planned = true;
        self
    }

    /// Its flag is a budget one.
    pub(crate) const fn budget(mut self) -> Self {
        self.group = SettingGroup::Budget;
        self
    }

    /// Its flag's longer help.
    pub(crate) const fn long_help(mut self, text: &'static str) -> Self {
        self.long_help = Some(text);
        self
    }

    /// What its `--no-` flag does, after `--name false`.
    pub(crate) const fn off_help(mut self, text: &'static str) -> Self {
        self.off_help = Some(text);
        self
    }

    /// The flag's name without its dashes (`stream-idle-secs`).
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// A setting the declaration does not have, or a value that cannot be used.
/// Its text (`Display`) names the setting first: `temperature must be
/// between 0 and 2, not 3.5`.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingProblem {
    field: &'static str,
    reason: String,
}

impl SettingProblem {
    pub(crate) fn new(field: &'static str, reason: String) -> Self {
        SettingProblem { field, reason }
    }

    /// The setting's field name (`extra_body`, `temperature`,
    /// `max_output_tokens`).
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// What is wrong with it, after its name.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl std::fmt::Display for SettingProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.reason)
    }
}

impl std::error::Error for SettingProblem {}

/// A value as a command line gives it, typed by its setting's
/// [`SettingKind`] (a choice and a JSON object as their text).
#[derive(Debug, Clone, PartialEq)]
pub enum FlagValue {
    /// A [`SettingKind::Bool`].
    Bool(bool),
    /// A [`SettingKind::Count`].
    Count(u32),
    /// A [`SettingKind::Integer`].
    Integer(i64),
    /// A [`SettingKind::Number`] or [`SettingKind::Seconds`].
    Number(f64),
    /// A [`SettingKind::Choice`] or [`SettingKind::JsonObject`].
    Text(String),
}

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

/// What a setting's field type does wherever a setting goes; the
/// declaration's code calls these with the setting's [`SettingSpec`].
pub(super) trait SettingValue: Clone + Default + serde::Serialize {
    /// Whether a value is set (an unset one lets the layer below show).
    fn is_set(&self) -> bool;

    /// `self` with `over` laid over it: `over` wins where it is set.
    fn overlaid(&self, over: &Self) -> Self {
        if over.is_set() {
            over.clone()
        } else {
            self.clone()
        }
    }

    /// Why the value cannot be used as `spec` says, if it cannot.
    fn problem(&self, spec: &SettingSpec) -> Option<String>;

    /// The value a flag gave.
    fn from_flag(value: FlagValue) -> Result<Self, String>;

    /// The value as JSON (what the hash and the cache key write).
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The text of a flag value of another kind than its setting's (a caller
/// that reads flags by the declared kinds never sees it).
fn wrong_kind(value: &FlagValue) -> String {
    format!("cannot take {value:?}")
}

/// A setting's value that is a plain number or truth value (its field an
/// `Option` of it): which flag value it is, and its check.
pub(super) trait Scalar: Copy + serde::Serialize {
    /// The value, if `value` is of this type's kind.
    fn from_flag(value: &FlagValue) -> Option<Self>;

    /// Why the value cannot be used as `spec` says, if it cannot.
    fn problem(self, _spec: &SettingSpec) -> Option<String> {
        None
    }
}

impl Scalar for bool {
    fn from_flag(value: &FlagValue) -> Option<Self> {
        match value {
            FlagValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl Scalar for i64 {
    fn from_flag(value: &FlagValue) -> Option<Self> {
        match value {
            FlagValue::Integer(n) => Some(*n),
            _ => None,
        }
    }
}

impl Scalar for u32 {
    fn from_flag(value: &FlagValue) -> Option<Self> {
        match value {
            FlagValue::Count(n) => Some(*n),
            _ => None,
        }
    }

    fn problem(self, spec: &SettingSpec) -> Option<String> {
        match spec.kind {
            SettingKind::Count { min } if self < min => Some(format!("must be at least {min}")),
            _ => None,
        }
    }
}

impl Scalar for f64 {
    fn from_flag(value: &FlagValue) -> Option<Self> {
        match value {
            FlagValue::Number(x) => Some(*x),
            _ => None,
        }
    }

    fn problem(self, spec: &SettingSpec) -> Option<String> {
        match spec.kind {
            SettingKind::Number { min, max } => (!(self.is_finite()
                && (min..=max).contains(&self)))
            .then(|| format!("must be between {min} and {max}, not {self}")),
            SettingKind::Seconds => timeout_from_secs(self).is_none().then(|| {
                format!(
                    "must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECS}, not {self}"
                )
            }),
            _ => None,
        }
    }
}

/// Unset is `None`.
impl<T: Scalar> SettingValue for Option<T> {
    fn is_set(&self) -> bool {
        self.is_some()
    }

    fn problem(&self, spec: &SettingSpec) -> Option<String> {
        self.and_then(|value| value.problem(spec))
    }

    fn from_flag(value: FlagValue) -> Result<Self, String> {
        T::from_flag(&value)
            .map(Some)
            .ok_or_else(|| wrong_kind(&value))
    }
}

/// `auto` is the unset output choice: laid over a fixed one, it keeps it.
impl SettingValue for OutputChoice {
    fn is_set(&self) -> bool {
        *self != OutputChoice::Auto
    }

    fn problem(&self, _: &SettingSpec) -> Option<String> {
        None
    }

    fn from_flag(value: FlagValue) -> Result<Self, String> {
        match value {
            FlagValue::Text(text) => text.parse().map_err(|e| format!("{e}")),
            other => Err(wrong_kind(&other)),
        }
    }
}

/// Objects merge key by key, `over` winning.
impl SettingValue for Map<String, Value> {
    fn is_set(&self) -> bool {
        !self.is_empty()
    }

    fn overlaid(&self, over: &Self) -> Self {
        let mut merged = self.clone();
        merged.extend(over.clone());
        merged
    }

    fn problem(&self, _: &SettingSpec) -> Option<String> {
        let owned: Vec<&str> = RESERVED_BODY_FIELDS
            .into_iter()
            .filter(|k| self.contains_key(*k))
            .collect();
        (!owned.is_empty()).then(|| {
            format!(
                "sets {}, which the backend itself sends (reserved: {})",
                owned.join(", "),
                RESERVED_BODY_FIELDS.join(", ")
            )
        })
    }

    fn from_flag(value: FlagValue) -> Result<Self, String> {
        let FlagValue::Text(text) = value else {
            return Err(wrong_kind(&value));
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("must be a JSON object".to_string()),
            Err(e) => Err(format!("is not JSON: {e}")),
        }
    }
}

impl SettingKind {
    /// Whether `text` is one of a [`Choice`](SettingKind::Choice)'s names
    /// (`Err` says which it could be); any text for another kind.
    pub fn check_choice(&self, text: &str) -> Result<(), String> {
        let SettingKind::Choice { what, names } = self else {
            return Ok(());
        };
        if names.contains(&text) {
            return Ok(());
        }
        let list = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        Err(format!("unknown {what} `{text}` (expected {list})"))
    }
}
