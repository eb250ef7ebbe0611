//! `tribunal compare BASE.jsonl NEW.jsonl | ARENA [--gate any|significant] [--alpha A]
//! [--allow-missing] [--allow-new-runs] [--report terminal|markdown|json|comment]
//! [--html OUT.html]`:
//! which item runs changed outcome (PASS → FAIL/ERROR regressions, the
//! reverse fixes, each FAIL with its failed checks' details), the pass-rate
//! change with its interval and an exact paired test, and beside it the
//! change in tokens per item run and per PASS; latency deltas. An arena
//! folder alone compares its two newest results files in `runs/`.
//!
//! Exit 0 when the gate passes, 1 when it finds a regression, 2 when an input
//! cannot be read or a flag is wrong, and 3–9 when the inputs cannot be gated
//! on (the gate fails closed): 3 a file with no valid row (a dataset
//! passed by mistake too), 4 a torn file,
//! 5 two arenas, 6 a file mixing runs, 7 baseline item runs missing from the
//! new file (`--allow-missing` lets a deliberately smaller run through), 8
//! item runs of the new file missing from the baseline (a baseline that
//! stopped early; `--allow-new-runs` lets items a change added through), 9
//! baseline runs that measured nothing (a `backend_error` ERROR, or an ERROR
//! where the new run FAILs).
//!
//! The gate: `any` fails on any regression; `significant` only on a
//! regression the paired test finds significant at `--alpha`. Without
//! `--gate`, mock or replayed results get `any` and live results
//! `significant`.

use super::report::read_results_torn;
use super::results_path::{RUNS, arena_name, results_of, results_stem};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::internal::report::compare::Comparison;
use tribunal::judge::internal::report::compare::{
    Allow, Gate, GateOutcome, InputProblem, SideInput,
};
use tribunal::judge::internal::report::format::html::render_compare;
use tribunal::judge::internal::report::format::{CommentOptions, SideCosts};
use tribunal::judge::{CostSummary, Pricing, ResultRow};

/// `--gate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GateChoice {
    /// Exit 1 on any item run that went PASS → FAIL or ERROR.
    Any,
    /// Exit 1 only on a regression significant at `--alpha`.
    Significant,
}

/// `--report`: how the comparison is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum CompareFormat {
    /// Plain text for people, the gate's verdict last.
    #[default]
    #[value(alias = "table")]
    Terminal,
    /// Markdown, for a pull request or a CI summary.
    #[value(alias = "md")]
    Markdown,
    /// JSON: the gate's verdict and every figure.
    Json,
    /// The body of a pull-request comment: the gate's verdict, pass rate,
    /// tokens and cost per item, cache use, and the changed item runs
    /// (capped by --max-items, linked by --details-url).
    Comment,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    /// The baseline results file (JSON Lines); or an arena folder, alone:
    /// then the arena's two newest results files in runs/ (the ones `run`
    /// writes without --out, one per backend and model) are compared, the
    /// older as the baseline.
    #[arg(value_name = "BASE|ARENA")]
    base: PathBuf,
    /// The new results file (JSON Lines); not with an arena folder.
    #[arg(value_name = "NEW")]
    new: Option<PathBuf>,
    /// When to exit 1. Default: `any` when either file holds mock or
    /// replayed results, `significant` for live results.
    #[arg(long, value_enum)]
    gate: Option<GateChoice>,
    /// The significance level of `--gate significant`, in (0, 1).
    #[arg(allow_negative_numbers = true, long, default_value_t = Gate::DEFAULT_ALPHA, value_parser = parse_alpha)]
    alpha: f64,
    /// Let baseline item runs be missing from the new file (a deliberately
    /// smaller run); their count is still printed. Without it, a missing
    /// run fails the gate with exit 7.
    #[arg(long)]
    allow_missing: bool,
    /// Let item runs of the new file be missing from the baseline (items
    /// the change added, when the baseline is known to be complete); their
    /// count is still printed. Without it, such a run fails the gate with
    /// exit 8: a baseline that stopped early would gate only what it ran.
    #[arg(long)]
    allow_new_runs: bool,
    /// How to print the comparison.
    #[arg(
        long,
        value_name = "FORMAT",
        value_enum,
        ignore_case = true,
        default_value_t
    )]
    report: CompareFormat,
    /// Also write the comparison as a self-contained HTML page.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// With `--report comment`: at most N item runs per list.
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = CommentOptions::DEFAULT_MAX_ITEMS)]
    max_items: usize,
    /// With `--report comment`: where the full comparison is (the CI run's
    /// page), linked beside a capped list.
    #[arg(long, value_name = "URL")]
    details_url: Option<String>,
    /// With `--report comment`: a line said before the figures (where the
    /// baseline came from, …); repeatable.
    #[arg(long, value_name = "TEXT")]
    note: Vec<String>,
    /// A pricing table (TOML, like the built-in `pricing.toml`) added to the
    /// built-in prices for the comment's cost row.
    #[arg(long, value_name = "FILE")]
    pricing: Option<PathBuf>,
}

/// The two files to compare: as given, or an arena folder's two newest
/// results files in `runs/` (said on stderr).
fn sides(args: &CompareArgs) -> anyhow::Result<(PathBuf, PathBuf)> {
    match (&args.new, args.base.is_dir()) {
        (Some(new), false) => Ok((args.base.clone(), new.clone())),
        (Some(_), true) => anyhow::bail!(
            "{} is a folder: give two results files, or an arena folder alone to compare its two newest results in {RUNS}/",
            args.base.display()
        ),
        (None, false) => anyhow::bail!(
            "compare needs two results files (BASE NEW), or an arena folder alone; got only {}",
            args.base.display()
        ),
        (None, true) => {
            let arena = arena_name(&args.base)?;
            let stem = results_stem(&args.base, &arena);
            let found = results_of(Path::new(RUNS), &stem, &arena)?;
            let [.., base, new] = found.as_slice() else {
                let listed: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
                anyhow::bail!(
                    "{RUNS}/ holds {} results file(s) of arena {arena:?}{}{}; compare needs two: run it again on another backend or model (each writes its own file), or name two files",
                    found.len(),
                    if listed.is_empty() { "" } else { ": " },
                    listed.join(", ")
                );
            };
            eprintln!(
                "compare: {} (baseline) → {} (new), the newest two of {}",
                base.display(),
                new.display(),
                found.len()
            );
            Ok((base.clone(), new.clone()))
        }
    }
}

/// One side's rows (the latest per item run) and whether its file was
/// torn. A file with lines but not one result row (a dataset passed by
/// mistake) is said and read as no rows: the gate fails closed with
/// `no_rows` (exit 3), as for an empty file.
pub(super) fn read_side(path: &Path) -> anyhow::Result<(Vec<ResultRow>, bool)> {
    match read_results_torn(path) {
        Ok(read) => Ok(read),
        Err(e) => match not_results(path) {
            Some(what) => {
                eprintln!(
                    "tribunal: compare: {}: {what}; compare the results files `tribunal run` writes (runs/<arena>.<backend>-<model>.jsonl)",
                    path.display()
                );
                Ok((Vec::new(), false))
            }
            None => Err(e),
        },
    }
}

/// What `path` looks like when not one of its lines is a result row: a
/// dataset, or other JSON Lines; `None` when some line is a row (the file
/// is damaged results: its read error says where) or it cannot be read.
fn not_results(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines
        .iter()
        .any(|l| serde_json::from_str::<ResultRow>(l).is_ok())
    {
        return None;
    }
    let first: Option<serde_json::Value> = lines.first().and_then(|l| serde_json::from_str(l).ok());
    let has = |key: &str| first.as_ref().is_some_and(|v| v.get(key).is_some());
    Some(if has("input") && has("id") {
        "it looks like a dataset (its lines are items: id, input, checks), not results".to_string()
    } else {
        "it is not a results file of `tribunal run`".to_string()
    })
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("{s:?} is not a significance level in (0, 1)")),
    }
}

pub(crate) fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let (base_path, new_path) = sides(&args)?;
    let base = read_side(&base_path)?;
    let new = read_side(&new_path)?;
    let comparison = Comparison::checked(
        SideInput {
            rows: &base.0,
            torn: base.1,
        },
        SideInput {
            rows: &new.0,
            torn: new.1,
        },
        Allow {
            missing: args.allow_missing,
            new_runs: args.allow_new_runs,
        },
    );
    let gate = match args.gate {
        None => match comparison.default_gate() {
            Gate::Any => Gate::Any,
            Gate::Significant { .. } => Gate::Significant { alpha: args.alpha },
        },
        Some(GateChoice::Any) => Gate::Any,
        Some(GateChoice::Significant) => Gate::Significant { alpha: args.alpha },
    };
    let exit_code = exit_code(comparison.gate_outcome(gate));
    match args.report {
        CompareFormat::Terminal => {
            print!("{}", comparison.to_text());
            println!("{}", comparison.gate_line(gate));
        }
        CompareFormat::Markdown => print!("{}", comparison.to_markdown(gate)),
        CompareFormat::Json => print!("{}", comparison.to_json(gate, exit_code)),
        CompareFormat::Comment => {
            let pricing =
                super::report_opts::pricing(&Pricing::default(), args.pricing.as_deref())?;
            let costs = SideCosts {
                base: CostSummary::of(&base.0, &pricing).1,
                new: CostSummary::of(&new.0, &pricing).1,
            };
            print!(
                "{}",
                comparison.to_comment(&CommentOptions {
                    gate,
                    max_items: args.max_items,
                    details_url: args.details_url.as_deref(),
                    notes: &args.note,
                    costs: Some(&costs),
                })
            );
        }
    }
    if let Some(out) = &args.html {
        super::folder::write_file(out, render_compare(&comparison, gate))?;
        eprintln!("comparison: {}", out.display());
    }
    for problem in &comparison.problems {
        eprintln!("tribunal: compare: {problem}");
    }
    Ok(ExitCode::from(exit_code))
}

/// What `tribunal compare` exits with (see the module doc): 0 a passing
/// gate, 1 a regression, 3–9 inputs that cannot be gated on. Also written
/// as `exit_code` in `--report json`. (2, an unreadable input or a wrong
/// flag, is an error before there is a comparison.)
fn exit_code(outcome: GateOutcome<'_>) -> u8 {
    match outcome {
        GateOutcome::Pass => 0,
        GateOutcome::Regression => 1,
        GateOutcome::Ungated(problem) => match problem {
            InputProblem::NoRows { .. } => 3,
            InputProblem::TornFile { .. } => 4,
            InputProblem::ArenaMismatch { .. } => 5,
            InputProblem::MixedRuns { .. } => 6,
            InputProblem::MissingRuns { .. } => 7,
            InputProblem::NewOnlyRuns { .. } => 8,
            InputProblem::BaselineErrors { .. } => 9,
        },
    }
}
