//! Argument parsing and dispatch. Each subcommand lives in its own file with
//! its clap `Args` struct and a `run` function returning the exit code.

mod approve;
mod backend_choice;
mod backend_flags;
mod check;
pub(crate) mod closed_pipe;
mod compare;
mod completions;
#[cfg(test)]
mod doc_commands;
mod folder;
mod git_change;
mod github;
mod import;
mod import_csv;
mod import_evals_class;
mod import_item;
mod import_promptfoo;
mod import_promptfoo_csv;
mod init;
mod judge;
mod leaderboard;
mod lint;
mod merge;
mod preflight;
mod progress;
mod report;
mod report_opts;
mod results_path;
mod review;
mod run;
mod run_args;
mod run_exit;
mod run_models;
mod sandbox;
mod schema;
mod search;
mod shape;
mod show;
mod user_flags;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub(crate) use shape::{heading, parse};

/// tribunal: run tool-using agents with structured answers, and judge them.
#[derive(Debug, Parser)]
#[command(name = "tribunal", version, about)]
pub(crate) struct Cli {
    /// Log more (-v info, -vv debug, -vvv trace). Logs go to stderr.
    #[arg(short, long, action = clap::ArgAction::Count, global = true, help_heading = heading::LOGGING)]
    pub(crate) verbose: u8,
    /// Colour in log lines: auto (when stderr is a terminal and NO_COLOR is
    /// unset), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", global = true, help_heading = heading::LOGGING)]
    pub(crate) color: ColorChoice,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run an arena (mock backend by default).
    Run(Box<run::RunArgs>),
    /// Create a new arena (two items, mock turns, schema, corpus) that lints clean and passes in mock mode.
    Init(init::InitArgs),
    /// Make a text-answer arena from another tool's dataset (OpenAI evals, inspect_ai or question/answer JSON Lines, promptfoo's YAML), saying what it could not map.
    Import(import::ImportArgs),
    /// Check an arena's files and report every problem with file:line.
    Lint(lint::LintArgs),
    /// Combine shard result files into one report.
    Merge(merge::MergeArgs),
    /// Provider schema tools.
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Check a model answer (stdin) against a schema: extract, decode, validate.
    Check(check::CheckArgs),
    /// Search a corpus with the same BM25 ranking the `search` tool uses.
    Search(search::SearchArgs),
    /// Run one command in the sandbox an arena's `run_command` tool uses (no network, only a copy of --dir writable, limits): prints the engine and limits, then what the model would read; exit 0 when it exited 0, 1 when it failed or hit a limit, 2 when no sandbox can be made.
    Sandbox(sandbox::SandboxArgs),
    /// Review a change (a git range, the uncommitted changes or a diff file) against requirements: the verdict, exit 0 GREEN, 1 RED, 2 no verdict.
    Review(Box<review::ReviewArgs>),
    /// GREEN/RED verdicts: human submissions and code reviews.
    #[command(subcommand)]
    Judge(judge::JudgeCommand),
    /// Render a results file as a report: the terminal table, any --report format, or HTML with --html.
    Report(report::ReportArgs),
    /// One run of a results file up close: its conversation (with --transcripts), tool calls, answer and each check with why.
    Show(show::ShowArgs),
    /// Compare two results files: outcome changes, pass-rate and token changes; exit 1 when the gate fails, 3-9 when the files cannot be gated on (empty, torn, two arenas, mixed runs, missing runs, runs missing from the baseline, a baseline that measured nothing).
    Compare(compare::CompareArgs),
    /// Several results files of one arena side by side: per run the pass rate with its interval, tokens per PASS, cost and latency, and each against a baseline with the paired test.
    Leaderboard(leaderboard::LeaderboardArgs),
    /// The GitHub calls of the pull-request gate (action/action.yml): its one PR comment, the baseline artifact, the check of a baseline.
    #[command(subcommand)]
    Github(github::GitHubCommand),
    /// Print a shell's completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), or write every page into a folder with --out.
    Man(completions::ManArgs),
}

pub(crate) fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        // Several `--model`s: one run each, then their leaderboard.
        Command::Run(a) if a.models.len() > 1 => run_models::run_each_model(*a),
        Command::Run(a) => run::run(*a),
        Command::Init(a) => init::run(a),
        Command::Import(a) => import::run(a),
        Command::Lint(a) => lint::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Schema(c) => schema::run(c),
        Command::Check(a) => check::run(a),
        Command::Review(a) => review::run(*a),
        Command::Search(a) => search::run(a),
        Command::Sandbox(a) => sandbox::run(a),
        Command::Judge(c) => judge::run(c),
        Command::Report(a) => report::run(a),
        Command::Show(a) => show::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Leaderboard(a) => leaderboard::run(a),
        Command::Github(c) => github::run(c),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a),
    }
}

/// When log lines are coloured (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// When stderr is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always, whatever stderr is (`NO_COLOR` too).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether stderr is a terminal and the value
    /// of `NO_COLOR` (<https://no-color.org>: any non-empty value).
    pub(crate) fn colors(self, terminal: bool, no_color: Option<&str>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && no_color.is_none_or(str::is_empty),
        }
    }
}

/// Installs the stderr log subscriber. `RUST_LOG` overrides `-v`. Its lines
/// go through the progress bar while one is drawn
/// ([`progress::write_stderr`]), so a log line never
/// tears it.
pub(crate) fn init_tracing(verbose: u8, color: ColorChoice) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let ansi = color.colors(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        std::env::var("NO_COLOR").ok().as_deref(),
    );
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogWriter)
        .with_ansi(ansi)
        .try_init();
}

/// stderr, by way of the progress bar.
struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        progress::write_stderr(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::Write::flush(&mut std::io::stderr())
    }
}

/// The tokio runtime commands run on.
pub(crate) fn tokio_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// `work` run on `runtime` to its end, or `None` when Ctrl-C comes first
/// (the work is then dropped, which cancels it): the caller says what was
/// going on and what was kept.
pub(crate) fn unless_interrupted<F: std::future::Future>(
    runtime: &tokio::runtime::Runtime,
    work: F,
) -> Option<F::Output> {
    runtime.block_on(async {
        tokio::select! {
            done = work => Some(done),
            _ = tokio::signal::ctrl_c() => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::ColorChoice;

    #[test]
    fn no_color_turns_auto_off_and_the_flag_wins() {
        assert!(ColorChoice::Auto.colors(true, None));
        assert!(ColorChoice::Auto.colors(true, Some("")));
        assert!(!ColorChoice::Auto.colors(true, Some("1")));
        assert!(!ColorChoice::Auto.colors(false, None));
        assert!(ColorChoice::Always.colors(false, Some("1")));
        assert!(!ColorChoice::Never.colors(true, None));
    }
}
