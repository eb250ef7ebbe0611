//! `tribunal leaderboard FILES… | ARENA [--baseline FILE|RUN] [--report
//! terminal|markdown|json] [--html OUT.html] [--pricing FILE]`: several
//! results files of one arena side by side — per run its pass rate with
//! the 95% Wilson interval, tokens per PASS, cost and latency — and each
//! against the baseline with the paired test `compare` gates on. An arena
//! folder alone takes every results file `run` wrote for it in `runs/`
//! (one per backend and model: `run ARENA --model a --model b` writes
//! them). Exit 0 when it printed, 2 when an input cannot be read or a flag
//! is wrong. It ranks; it does not gate (`compare` does).

use super::compare::read_side;
use super::results_path::{RUNS, arena_name, results_of, results_stem};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::Pricing;
use tribunal::judge::ResultRow;
use tribunal::judge::internal::report::format::html::render_leaderboard;
use tribunal::judge::internal::report::leaderboard::{Entrant, Leaderboard};

/// `--report`: how the leaderboard is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum LeaderboardFormat {
    /// A table for people, then what its figures mean.
    #[default]
    #[value(alias = "table")]
    Terminal,
    /// Markdown, for a pull request or a CI summary.
    #[value(alias = "md")]
    Markdown,
    /// JSON: every figure of every run.
    Json,
}

#[derive(Debug, clap::Args)]
pub(crate) struct LeaderboardArgs {
    /// Results files (JSON Lines), one per run; or an arena folder alone:
    /// then every results file `run` wrote for it in runs/.
    #[arg(value_name = "FILE|ARENA", required = true)]
    files: Vec<PathBuf>,
    /// The run every other is compared with: one of the files, or a run's
    /// name as the table shows it (`backend/model`), or its model. Default:
    /// the first file.
    #[arg(long, value_name = "FILE|RUN")]
    baseline: Option<String>,
    /// How to print the leaderboard.
    #[arg(
        long,
        value_name = "FORMAT",
        value_enum,
        ignore_case = true,
        default_value_t
    )]
    report: LeaderboardFormat,
    /// Also write the leaderboard as a self-contained HTML page.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// A pricing table (TOML, like the built-in `pricing.toml`) added to the
    /// built-in prices.
    #[arg(long, value_name = "FILE")]
    pricing: Option<PathBuf>,
}

/// One file's rows as read.
struct Read {
    source: String,
    rows: Vec<ResultRow>,
    torn: bool,
}

pub(crate) fn run(args: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let files = files(&args.files)?;
    let pricing = super::report_opts::pricing(&Pricing::default(), args.pricing.as_deref())?;
    let board = board_of(&files, args.baseline.as_deref(), &pricing)?;
    match args.report {
        LeaderboardFormat::Terminal => print!("{}", board.to_text()),
        LeaderboardFormat::Markdown => print!("{}", board.to_markdown()),
        LeaderboardFormat::Json => println!("{}", serde_json::to_string_pretty(&board)?),
    }
    if let Some(out) = &args.html {
        super::folder::write_file(out, render_leaderboard(&board))?;
        eprintln!("leaderboard: {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The leaderboard of `files` against `baseline` (a file, a run's
/// `backend/model` or its model; default: the first file).
pub(super) fn board_of(
    files: &[PathBuf],
    baseline: Option<&str>,
    pricing: &Pricing,
) -> anyhow::Result<Leaderboard> {
    let mut read = Vec::with_capacity(files.len());
    for path in files {
        let (rows, torn) = read_side(path)?;
        if rows.is_empty() {
            anyhow::bail!(
                "{}: no result rows to rank (a run that wrote nothing, or not a results file)",
                path.display()
            );
        }
        read.push(Read {
            source: path.display().to_string(),
            rows,
            torn,
        });
    }
    let baseline = match baseline {
        None => 0,
        Some(wanted) => baseline_index(&read, wanted)?,
    };
    let entrants: Vec<Entrant<'_>> = read
        .iter()
        .map(|r| Entrant {
            source: &r.source,
            rows: &r.rows,
            torn: r.torn,
        })
        .collect();
    Ok(Leaderboard::new(&entrants, baseline, pricing))
}

/// The files as given, or an arena folder's results files in `runs/`
/// (said on stderr).
fn files(given: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    match given {
        [dir] if dir.is_dir() => {
            let arena = arena_name(dir)?;
            let stem = results_stem(dir, &arena);
            let found = results_of(Path::new(RUNS), &stem, &arena)?;
            if found.is_empty() {
                anyhow::bail!(
                    "{RUNS}/ holds no results file of arena {arena:?}: run it first (`tribunal run {} --backend … --model a --model b` writes one file per model)",
                    dir.display()
                );
            }
            eprintln!(
                "leaderboard: {} results file(s) of {arena} in {RUNS}/",
                found.len()
            );
            Ok(found)
        }
        _ => {
            if let Some(dir) = given.iter().find(|p| p.is_dir()) {
                anyhow::bail!(
                    "{} is a folder: give results files, or an arena folder alone",
                    dir.display()
                );
            }
            Ok(given.to_vec())
        }
    }
}

/// Which of `read` `wanted` names: a file as given, a run's
/// `backend/model`, or its model; an error when none or several do.
fn baseline_index(read: &[Read], wanted: &str) -> anyhow::Result<usize> {
    let names = |r: &Read| -> Vec<String> {
        let mut names = vec![r.source.clone()];
        if let Some(row) = r.rows.first() {
            names.push(format!("{}/{}", row.backend, row.model));
            names.push(row.model.clone());
        }
        names
    };
    let matching: Vec<usize> = read
        .iter()
        .enumerate()
        .filter(|(_, r)| names(r).iter().any(|n| n == wanted))
        .map(|(i, _)| i)
        .collect();
    match matching.as_slice() {
        [i] => Ok(*i),
        [] => anyhow::bail!(
            "--baseline {wanted:?} names none of the runs: give one of the files, or a run's backend/model or model ({})",
            read.iter()
                .filter_map(|r| names(r).get(1).cloned())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => anyhow::bail!(
            "--baseline {wanted:?} names {} runs: give the file instead",
            matching.len()
        ),
    }
}
