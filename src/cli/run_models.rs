//! `tribunal run ARENA --model a --model b …`: the arena on each model in
//! turn, as if `run` had been called once per model — each run its own
//! results file (the default name holds the model; `--out` must be a
//! folder), with the same hashing, caching and `--resume` a single run has
//! — then the leaderboard of the runs (`tribunal leaderboard`), the first
//! model its baseline. `--record`, `--replay` and `--transcripts` get a
//! subfolder per model, so one model's cassette or transcripts never
//! overwrite another's. Each `--model` may name its provider
//! (`openai/…`, `anthropic/…`): a grid across providers is one command.
//! In mock mode each name runs the same scripted answers (the results
//! files are named after it): the plumbing is tested, not the models.
//!
//! Exit: the first run's code that is not 0 (every model still runs),
//! 130 at once when interrupted.

use super::backend_choice::{BackendChoice, read_provider_prefix, split_provider};
use super::results_path::{file_safe, names_folder};
use super::run::{ExitRule, RunArgs, run_one};
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn run_each_model(args: RunArgs) -> anyhow::Result<ExitCode> {
    refuse_shared_outputs(&args)?;
    let mut seen: Vec<String> = Vec::new();
    for model in &args.models {
        let name = file_safe(model);
        if seen.contains(&name) {
            anyhow::bail!(
                "--model {model} is given twice (or as another name that reads the same in a file name): each model's results would overwrite the other's"
            );
        }
        seen.push(name);
    }
    let prefixed = args
        .models
        .iter()
        .filter(|m| split_provider(m).is_some())
        .count();
    if args.backend == BackendChoice::Mock && prefixed > 0 && prefixed < args.models.len() {
        anyhow::bail!(
            "some --model names its provider (openai/…, anthropic/…) and some do not: without --backend those would run on the mock; name every model's provider, or give --backend"
        );
    }
    // The arena's `[pricing]` under --pricing, as each run's report has it.
    let arena_prices = tribunal::judge::Arena::load(&args.arena)
        .map(|arena| arena.pricing)
        .unwrap_or_default();
    let pricing = super::report_opts::pricing(&arena_prices, args.report.pricing.as_deref())?;
    let mut first_failure: Option<ExitCode> = None;
    let mut files: Vec<PathBuf> = Vec::new();
    for model in &args.models {
        eprintln!("== --model {model}");
        let (code, out) = run_one(one_model(&args, model), ExitRule::PassRate)?;
        if code == ExitCode::from(130) {
            return Ok(code);
        }
        if code != ExitCode::SUCCESS && first_failure.is_none() {
            first_failure = Some(code);
        }
        files.extend(out);
    }
    if files.len() > 1 {
        let board = super::leaderboard::board_of(&files, None, &pricing)?;
        print!("\n{}", board.to_text());
    }
    Ok(first_failure.unwrap_or(ExitCode::SUCCESS))
}

/// The flags of one model's run: that model alone, and the folders runs
/// write into made that model's.
fn one_model(args: &RunArgs, model: &str) -> RunArgs {
    let mut one = args.clone();
    one.models.clear();
    one.model = Some(model.to_string());
    read_provider_prefix(&mut one.backend, &mut one.model);
    if one.backend == BackendChoice::Mock {
        one.mock_stand_in = one.model.take();
    }
    let sub = |dir: &Option<PathBuf>| dir.as_ref().map(|d| d.join(file_safe(model)));
    one.record = sub(&args.record);
    one.replay = sub(&args.replay);
    one.report.transcripts = sub(&args.report.transcripts);
    one
}

/// The flags that name one file for the whole command, which several
/// runs would each overwrite: refused, with what to use instead.
fn refuse_shared_outputs(args: &RunArgs) -> anyhow::Result<()> {
    if let Some(out) = args.out.as_deref().filter(|out| !names_folder(out)) {
        anyhow::bail!(
            "--out {} names one file, and each --model writes its own: give a folder (ending in /), or leave --out out for runs/",
            out.display()
        );
    }
    if args.html.is_some() || args.report.report_file.is_some() {
        anyhow::bail!(
            "--html and --report-file name one file, and each --model has its own report: write the leaderboard's page with `tribunal leaderboard ARENA --html FILE`, or each model's with `tribunal report`"
        );
    }
    Ok(())
}
