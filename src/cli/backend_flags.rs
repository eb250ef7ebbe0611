//! The live-backend flags `run` and `judge run` share: `--base-url`, and
//! one flag per backend setting (two for a truth value: `--X BOOL` and
//! `--no-X`), made from the settings' declaration
//! ([`BackendSettings::SPECS`]) — a setting declared there is a flag here
//! with nothing more to write — and laid over an arena's `[backend]` table.

use super::heading;
use clap::builder::ValueParser;
use clap::{Arg, ArgAction, ArgMatches, Command};
use tribunal::runtime::internal::backend::{
    BackendSettings, FlagValue, SettingGroup, SettingKind, SettingSpec,
};

/// `--base-url`'s id.
const BASE_URL: &str = "base_url";

#[derive(Debug, Clone, Default)]
pub(crate) struct BackendFlags {
    /// `--base-url`.
    base_url: Option<String>,
    /// Each setting a flag set, by name, typed by its declared kind.
    set: Vec<(&'static str, FlagValue)>,
}

/// The id of a truth value's `--no-` flag.
fn off_id(spec: &SettingSpec) -> String {
    format!("no_{}", spec.name)
}

/// The help of a flag as clap's derive writes a doc comment: the line
/// without its final period; the long help, when there is one, is the
/// whole line, a blank line, then the rest.
fn described(arg: Arg, line: &str, long: Option<&str>) -> Arg {
    let arg = arg.help(line.trim_end_matches('.').to_string());
    match long {
        Some(long) => arg.long_help(format!("{line}\n\n{long}")),
        None => arg,
    }
}

/// The flag (or the two flags) of one setting.
fn setting_args(spec: &'static SettingSpec) -> Vec<Arg> {
    let heading = match spec.group {
        SettingGroup::Budget => heading::BUDGETS,
        SettingGroup::Request => heading::BACKEND,
    };
    let parser: ValueParser = match spec.kind {
        SettingKind::Bool => clap::value_parser!(bool),
        SettingKind::Count { min: 0 } => clap::value_parser!(u32).into(),
        SettingKind::Count { min } => clap::value_parser!(u32).range(i64::from(min)..).into(),
        SettingKind::Integer => clap::value_parser!(i64).into(),
        SettingKind::Number { .. } | SettingKind::Seconds => clap::value_parser!(f64).into(),
        kind => {
            ValueParser::new(move |text: &str| kind.check_choice(text).map(|()| text.to_string()))
        }
    };
    let arg = Arg::new(spec.name)
        .long(spec.flag())
        .value_name(spec.value_name)
        .action(ArgAction::Set)
        .value_parser(parser)
        .help_heading(heading)
        .hide_short_help(true);
    let arg = described(arg, spec.help, spec.long_help);
    if spec.kind != SettingKind::Bool {
        return vec![arg];
    }
    let off_help = match spec.off_help {
        Some(what) => format!("`--{} false`: {what}", spec.flag()),
        None => format!("`--{} false`", spec.flag()),
    };
    let off = Arg::new(off_id(spec))
        .long(format!("no-{}", spec.flag()))
        .action(ArgAction::SetTrue)
        .help(off_help)
        .help_heading(heading)
        .hide_short_help(true);
    vec![arg.conflicts_with(off_id(spec)), off]
}

impl clap::Args for BackendFlags {
    fn augment_args(cmd: Command) -> Command {
        let base_url = Arg::new(BASE_URL)
            .long("base-url")
            .value_name("URL")
            .action(ArgAction::Set)
            .value_parser(clap::value_parser!(String))
            .help_heading(heading::MODEL);
        let base_url = described(
            base_url,
            "The API root of the model's server, e.g. http://127.0.0.1:8080/v1.",
            Some(
                "The API root of the model's server, e.g. http://127.0.0.1:8080/v1 (default: OPENAI_BASE_URL or ANTHROPIC_BASE_URL, else the provider's own). A server off the provider's hosts needs no key.",
            ),
        );
        cmd.arg(base_url)
            .args(BackendSettings::SPECS.iter().flat_map(setting_args))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for BackendFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = BackendFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        if let Some(url) = matches.get_one::<String>(BASE_URL) {
            self.base_url = Some(url.clone());
        }
        for spec in BackendSettings::SPECS {
            let Some(value) = flag_value(spec, matches) else {
                continue;
            };
            self.set.retain(|(name, _)| *name != spec.name);
            self.set.push((spec.name, value));
        }
        Ok(())
    }
}

/// What the flags of `spec` set in `matches`, if they set it.
fn flag_value(spec: &SettingSpec, matches: &ArgMatches) -> Option<FlagValue> {
    let name = spec.name;
    match spec.kind {
        SettingKind::Bool if matches.get_flag(&off_id(spec)) => Some(FlagValue::Bool(false)),
        SettingKind::Bool => matches.get_one::<bool>(name).copied().map(FlagValue::Bool),
        SettingKind::Count { .. } => matches.get_one::<u32>(name).copied().map(FlagValue::Count),
        SettingKind::Integer => matches
            .get_one::<i64>(name)
            .copied()
            .map(FlagValue::Integer),
        SettingKind::Number { .. } | SettingKind::Seconds => {
            matches.get_one::<f64>(name).copied().map(FlagValue::Number)
        }
        _ => matches
            .get_one::<String>(name)
            .cloned()
            .map(FlagValue::Text),
    }
}

impl BackendFlags {
    /// The settings these flags set (unset flags stay at their defaults, so
    /// laying them over a table keeps its values). A setting that cannot be
    /// used is named as the flag that set it.
    pub(crate) fn settings(&self) -> anyhow::Result<BackendSettings> {
        let named =
            |field: &str, reason: &str| anyhow::anyhow!("--{} {reason}", field.replace('_', "-"));
        let settings = BackendSettings::from_flags(self.set.iter().cloned())
            .map_err(|p| named(p.field(), p.reason()))?;
        match settings.problems().first() {
            Some(problem) => Err(named(problem.field(), problem.reason())),
            None => Ok(settings),
        }
    }

    /// `--base-url`.
    pub(crate) fn base_url(&self) -> Option<&str> {
        self.base_url.as_deref()
    }

    /// Whether any flag is set (they need a live backend).
    pub(crate) fn any(&self) -> bool {
        self.base_url.is_some() || !self.set.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// The flags as a command line of `args` gives them.
    fn parsed(args: &[&str]) -> Result<BackendFlags, clap::Error> {
        let cmd = BackendFlags::augment_args(Command::new("t"));
        let matches = cmd.try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))?;
        BackendFlags::from_arg_matches(&matches)
    }

    #[test]
    fn a_setting_that_cannot_be_used_is_named_as_its_flag() {
        let refused = |args: &[&str]| {
            parsed(args)
                .map_err(|e| e.to_string())
                .and_then(|f| f.settings().map_err(|e| e.to_string()))
                .err()
        };
        assert_eq!(
            refused(&["--extra-body", r#"{"stream": false, "top_k": 2}"#]).as_deref(),
            Some(
                "--extra-body sets stream, which the backend itself sends (reserved: model, messages, input, tools, tool_choice, stream)"
            )
        );
        assert_eq!(
            refused(&["--temperature", "7"]).as_deref(),
            Some("--temperature must be between 0 and 2, not 7")
        );
        assert_eq!(
            refused(&["--temperature", "NaN"]).as_deref(),
            Some("--temperature must be between 0 and 2, not NaN")
        );
        assert_eq!(
            refused(&["--stream-idle-secs=-1"]).as_deref(),
            Some(
                "--stream-idle-secs must be a number of seconds above 0 and at most 86400, not -1"
            )
        );
        assert_eq!(
            refused(&["--extra-body", "[1]"]).as_deref(),
            Some("--extra-body must be a JSON object")
        );
        let unknown = refused(&["--output", "grammar"]).unwrap_or_default();
        assert!(
            unknown.contains(
                "unknown output strategy `grammar` (expected auto, native, tool or prompt)"
            ),
            "{unknown}"
        );
        let fine = parsed(&["--seed", "3", "--no-prompt-cache"]).ok();
        let settings = fine.as_ref().and_then(|f| f.settings().ok());
        assert_eq!(settings.as_ref().and_then(|s| s.seed), Some(3));
        assert_eq!(settings.and_then(|s| s.prompt_cache), Some(false));
        let uncut = parsed(&["--no-cut-runaway", "--no-parallel-tool-calls"]).ok();
        assert!(uncut.as_ref().is_some_and(BackendFlags::any));
        let settings = uncut.and_then(|f| f.settings().ok());
        assert_eq!(settings.as_ref().and_then(|s| s.cut_runaway), Some(false));
        assert_eq!(settings.and_then(|s| s.parallel_tool_calls), Some(false));
        assert!(parsed(&["--no-prompt-cache", "--prompt-cache", "true"]).is_err());
        assert!(
            parsed(&["--max-output-tokens", "0"]).is_err(),
            "clap's range"
        );
        assert!(!parsed(&[]).is_ok_and(|f| f.any()));
    }

    #[test]
    fn every_declared_setting_is_a_flag_and_reads_back_as_set() {
        for spec in BackendSettings::SPECS {
            let value = match spec.kind {
                SettingKind::Bool => "true",
                SettingKind::Choice { names, .. } => names.last().copied().unwrap_or_default(),
                SettingKind::JsonObject => r#"{"top_k": 1}"#,
                _ => "1",
            };
            let flag = format!("--{}", spec.flag());
            let settings = parsed(&[&flag, value])
                .map_err(|e| e.to_string())
                .and_then(|f| f.settings().map_err(|e| e.to_string()));
            let settings = settings.unwrap_or_else(|e| panic!("{flag} {value}: {e}"));
            assert_ne!(settings, BackendSettings::default(), "{flag} set nothing");
        }
    }
}
