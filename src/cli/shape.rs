//! The shape of the command line beyond each subcommand's own flags: the
//! help headings flags are grouped under, the spellings that were renamed
//! (refused with the new name), and the one parse `main` and the docs test
//! go through.

use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::process::ExitCode;

/// The headings of `--help`, in the order they are first used.
pub(crate) mod heading {
    /// Which model answers (and how the mock plays).
    pub(crate) const MODEL: &str = "Model";
    /// A review's inputs (`judge run`, `judge submit`).
    pub(crate) const REVIEW: &str = "Review";
    /// Who grades `rubric` checks.
    pub(crate) const JUDGE: &str = "Judge";
    /// Limits on each run and on the whole run.
    pub(crate) const BUDGETS: &str = "Budgets";
    /// The results file and cassettes.
    pub(crate) const RESULTS: &str = "Results";
    /// What is printed or written as the report.
    pub(crate) const OUTPUT: &str = "Output";
    /// When the command exits 1.
    pub(crate) const GATE: &str = "Gate";
    /// Which items run, how often, how many at once: repeats, concurrency,
    /// provider batches, shards.
    pub(crate) const SCALE: &str = "Items and scale";
    /// Request settings laid over the arena's `[backend]` table.
    pub(crate) const BACKEND: &str = "Backend settings";
    /// `-v` and `--color`, on every subcommand.
    pub(crate) const LOGGING: &str = "Logging";
}

/// Old spellings and the flag that replaced them: on any subcommand that has
/// the new flag, the old one is accepted by the parser only to be refused
/// with the new name (exit 2), so a script written for an older release
/// fails saying what to write instead.
pub(crate) const RENAMED: &[(&str, &str)] = &[
    ("deadline", "deadline-secs"),
    ("batch-poll", "batch-poll-secs"),
    ("mock-latency", "mock-latency-ms"),
];

/// The ids of the hidden arguments that catch the [`RENAMED`] spellings,
/// in the same order.
const RENAMED_IDS: [&str; 3] = [
    "renamed:deadline",
    "renamed:batch-poll",
    "renamed:mock-latency",
];

/// Headings of flags whose definitions are shared or live beside their
/// subcommand's logic (the report options of `run`, `merge` and `report`;
/// `compare`'s): `(argument id, heading, only in --help)`, set wherever the
/// argument exists.
const PLACED: &[(&str, &str, bool)] = &[
    ("report", heading::OUTPUT, false),
    ("report_file", heading::OUTPUT, true),
    ("html", heading::OUTPUT, false),
    ("transcripts", heading::OUTPUT, true),
    ("pricing", heading::OUTPUT, true),
    ("max_items", heading::OUTPUT, true),
    ("details_url", heading::OUTPUT, true),
    ("note", heading::OUTPUT, true),
    ("min_pass_rate", heading::GATE, false),
    ("gate", heading::GATE, false),
    ("alpha", heading::GATE, false),
    ("allow_missing", heading::GATE, false),
    ("out", heading::RESULTS, false),
];

/// The `tribunal` command the program parses with: the derived one with
/// the placed headings and the renamed spellings added to every
/// subcommand.
pub(crate) fn command() -> clap::Command {
    shaped(super::Cli::command(), true)
}

/// The command as completions and man pages show it: without the renamed
/// spellings, which nobody should be offered.
pub(crate) fn documented_command() -> clap::Command {
    shaped(super::Cli::command(), false)
}

fn shaped(mut cmd: clap::Command, renamed: bool) -> clap::Command {
    for &(id, heading, long_only) in PLACED {
        if cmd.get_arguments().any(|a| a.get_id() == id) {
            cmd = cmd.mut_arg(id, |a| a.help_heading(heading).hide_short_help(long_only));
        }
    }
    for (&(old, new), id) in RENAMED.iter().zip(RENAMED_IDS) {
        if renamed && cmd.get_arguments().any(|a| a.get_long() == Some(new)) {
            cmd = cmd.arg(
                Arg::new(id)
                    .long(old)
                    .hide(true)
                    .num_args(0..=1)
                    .action(ArgAction::Append),
            );
        }
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |c| shaped(c, renamed));
    }
    cmd
}

/// Parses `args` (the program name first) as `main` does: clap's own
/// errors and `--help` exit as clap exits them; a renamed spelling is one
/// line naming the new flag, exit 2.
pub(crate) fn parse<I, T>(args: I) -> Result<super::Cli, ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match try_parse(args) {
        Ok(cli) => Ok(cli),
        Err(Refusal::Clap(e)) => match e.print() {
            // `tribunal --help | head -1`: quiet, as every command.
            Err(p) if p.kind() == std::io::ErrorKind::BrokenPipe => {
                Err(ExitCode::from(super::closed_pipe::CLOSED_PIPE_EXIT))
            }
            _ => Err(ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))),
        },
        Err(Refusal::Renamed { old, new }) => {
            eprintln!("tribunal: --{old} is now --{new}");
            Err(ExitCode::from(2))
        }
    }
}

/// Why a command line was not parsed.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// clap's error (or `--help`, `--version`).
    Clap(clap::Error),
    /// A spelling in [`RENAMED`].
    Renamed {
        /// The old flag, without dashes.
        old: &'static str,
        /// The flag to write instead.
        new: &'static str,
    },
}

/// [`parse`] without printing or exiting.
pub(crate) fn try_parse<I, T>(args: I) -> Result<super::Cli, Refusal>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut matches = command()
        .try_get_matches_from(args)
        .map_err(Refusal::Clap)?;
    if let Some((old, new)) = renamed_used(&matches) {
        return Err(Refusal::Renamed { old, new });
    }
    super::Cli::from_arg_matches_mut(&mut matches).map_err(Refusal::Clap)
}

/// The first renamed spelling on the command line, at any subcommand level.
fn renamed_used(matches: &ArgMatches) -> Option<(&'static str, &'static str)> {
    let here = RENAMED
        .iter()
        .zip(RENAMED_IDS)
        .find(|(_, id)| {
            matches
                .try_get_raw_occurrences(id)
                .ok()
                .flatten()
                .is_some_and(|mut o| o.next().is_some())
        })
        .map(|(&renamed, _)| renamed);
    here.or_else(|| matches.subcommand().and_then(|(_, sub)| renamed_used(sub)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_renamed_spelling_is_caught_somewhere_and_names_a_flag_that_exists() {
        let cmd = command();
        fn longs(cmd: &clap::Command, out: &mut Vec<String>) {
            out.extend(
                cmd.get_arguments()
                    .filter_map(|a| a.get_long().map(str::to_string)),
            );
            for sub in cmd.get_subcommands() {
                longs(sub, out);
            }
        }
        let mut all = Vec::new();
        longs(&cmd, &mut all);
        assert_eq!(RENAMED.len(), RENAMED_IDS.len());
        for (old, new) in RENAMED {
            assert!(all.iter().any(|l| l == new), "--{new}");
            assert!(all.iter().any(|l| l == old), "--{old} is caught nowhere");
        }
        cmd.debug_assert();
    }
}
