//! `tribunal run ARENA`: lint the arena, run every item against the mock
//! (default) or a live backend, append result rows, print the report.
//! Exit 0 when every item passes (or the pass rate reaches
//! `--min-pass-rate`) and, with `--min-kappa`, the calibration's kappa
//! reaches it; 1 otherwise; 2 on a usage, config or lint error. The flags
//! and what they ask for are in `run_args.rs`; the run itself is the
//! judge's (`RunPlan::prepare`, `PreparedRun`).

use super::backend_choice::read_provider_prefix;
use super::preflight::{Checked, before_first_item};
use super::progress::Console;
use super::report_opts::emit_report_with;
use super::results_path::{file_name, out_path, results_stem};
pub(crate) use super::run_args::RunArgs;
use super::run_args::{plan_error, say_shard};
pub(crate) use super::run_exit::ExitRule;
use super::run_exit::{Calibrations, stopped_early};
use std::path::PathBuf;
use std::process::ExitCode;
use tribunal::judge::Environment;
use tribunal::judge::internal::report::user_stops;
use tribunal::judge::internal::run::shard_env::{ShardFlags, resolve_shard};
use tribunal::judge::{JudgeError, Progress, RunOptions, Silent, read_rows};

pub(crate) fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    run_gated(args, ExitRule::PassRate)
}

/// Runs the arena; `rule` says what the exit code reflects. Under
/// [`ExitRule::Kappa`] the calibration is always part of the report.
pub(crate) fn run_gated(args: RunArgs, rule: ExitRule) -> anyhow::Result<ExitCode> {
    run_one(args, rule).map(|(code, _)| code)
}

/// [`run_gated`], with the results file when the run wrote one.
pub(super) fn run_one(
    mut args: RunArgs,
    rule: ExitRule,
) -> anyhow::Result<(ExitCode, Option<PathBuf>)> {
    if args.model.is_none() && args.mock_stand_in.is_none() {
        if args.models.len() > 1 {
            anyhow::bail!(
                "--model is given {} times: this command runs one model",
                args.models.len()
            );
        }
        args.model = args.models.pop();
    }
    // `--model openai/gpt-4.1-mini` without `--backend` names both.
    read_provider_prefix(&mut args.backend, &mut args.model);
    args.calibrate |=
        rule == ExitRule::Kappa || args.min_kappa.is_some() || args.max_injection_lift.is_some();
    args.check_gates()?;
    let Some(loaded) = args.arena()? else {
        return Ok((ExitCode::from(2), None));
    };
    if args.calibrate && loaded.gold_verdicts().is_empty() && loaded.gold_rubric().is_empty() {
        anyhow::bail!(
            "{}: no item has a gold verdict (a verdict_equals check) or gold_rubric labels to calibrate against",
            args.arena.display()
        );
    }
    let flags = ShardFlags {
        shard: args.shard.as_deref(),
        shards: args.shards,
    };
    // The process's variables, read once: keys, base URLs, the shard,
    // the `[[mcp]]` servers' variables.
    let env = Environment::of_process();
    let chosen = resolve_shard(flags, &|name| {
        env.var_os(name).map(|v| v.to_string_lossy().into_owned())
    })?;
    let shard = chosen.as_ref().map(|c| c.shard);
    args.report.check()?;
    // Read before anything runs: a bad --pricing file fails fast.
    let pricing = super::report_opts::pricing(&loaded.pricing, args.report.pricing.as_deref())?;
    if args.approve.is_some() {
        super::approve::require_terminal()?;
    }
    let plan = args.plan(&loaded)?;
    let prepared = plan
        .prepare(&loaded, &env)
        .map_err(|e| plan_error(e, &args.arena))?;
    if args.mock_problems(&prepared) > 0 {
        return Ok((ExitCode::from(2), None));
    }
    // `judge calibrate`'s results go beside `run`'s, never over them.
    let kind = if rule == ExitRule::Kappa {
        "calibrate"
    } else {
        ""
    };
    let stem = results_stem(&args.arena, &loaded.name);
    let name = file_name(&stem, kind, &args.label().text(), shard);
    let out = out_path(args.out.as_deref(), &name);
    // A new run starts its file anew: said after it, with how many rows
    // (whole lines; not parsed twice) it replaced.
    let replaced = if args.resume || args.retry_errors {
        0
    } else {
        std::fs::read(&out).map_or(0, |bytes| bytes.iter().filter(|&&b| b == b'\n').count())
    };
    let empty_shard = say_shard(chosen.as_ref(), prepared.arena());
    let options = RunOptions::new(out.clone())
        .with_concurrency(args.concurrency)
        .with_repeat(args.repeat)
        .with_shard(shard)
        .with_mode(args.mode())
        .with_transcripts(args.report.transcripts.clone())
        .with_pricing(pricing)
        .with_max_total_usd(args.max_cost_usd)
        .with_fail_fast(args.fail_fast);
    let options = match args.approve {
        Some(_) => super::approve::person_decides(options),
        None => options,
    };
    // No bar under a person's questions.
    args.quiet |= args.approve.is_some();
    let progress: Box<dyn Progress> = match args.quiet {
        true => Box::new(Silent),
        false => Box::new(Console::new()),
    };
    let runtime = super::tokio_runtime()?;
    // A wrong base URL or key is one error before any item, not one per
    // item: the live backends are asked `GET /models` (no tokens) first.
    if let Checked::Interrupted(code) =
        before_first_item(&runtime, prepared.preflight(), "no item")?
    {
        return Ok((code, None));
    }
    // `[[mcp]]` servers start on the runtime the runs use (their
    // connections' tasks live there) and stop when the run is dropped.
    let ready = match super::unless_interrupted(&runtime, prepared.start_tools()) {
        Some(Ok(ready)) => ready,
        Some(Err(e)) => {
            eprintln!("tribunal: {}: {e} [{}]", args.arena.display(), e.code());
            return Ok((ExitCode::from(2), None));
        }
        None => {
            eprintln!(
                "\ntribunal: interrupted while starting the arena's [[mcp]] servers: no item ran, nothing was written"
            );
            return Ok((ExitCode::from(130), None));
        }
    };
    // Ctrl-C stops the run; the rows finished so far are in the results
    // file already, and --resume runs the rest.
    let interrupted = super::unless_interrupted(&runtime, ready.run(&options, progress.as_ref()));
    let Some(result) = interrupted else {
        // The rows are read as `--resume` will read them (a torn last line
        // is not one).
        let kept = read_rows(&out).map_or(0, |read| read.rows.len());
        eprintln!(
            "\ntribunal: interrupted: {kept} finished run(s) are kept in {}; the same command with --resume runs the rest",
            out.display()
        );
        return Ok((ExitCode::from(130), Some(out)));
    };
    let result = result.map_err(|e| match e {
        JudgeError::WouldReplace { .. } => {
            anyhow::anyhow!("{e}: pass --force to replace them, or --out FILE to write elsewhere")
        }
        e => e.into(),
    })?;
    if result.torn_discarded {
        eprintln!("tribunal: discarded a torn last line in {}", out.display());
    }
    eprintln!("results: {}", out.display());
    if replaced > 0 {
        eprintln!(
            "tribunal: this run started {} anew: the {replaced} row(s) of the run before were replaced (--resume keeps a file's rows and runs only what it lacks)",
            out.display()
        );
    }
    let arena = ready.arena();
    let calibrations = args
        .calibrate
        .then(|| Calibrations::of(arena, &result.rows));
    let calibrations = calibrations.unwrap_or_default();
    // A conversation arena with injected twins: the simulated user's stop lift.
    let notes = user_stops::user_stop_lift(arena, &result.rows)
        .map(|lift| user_stops::user_stop_lines(&lift))
        .unwrap_or_default();
    if let Some(html) = &args.html {
        super::report_opts::emit_html(
            &result.rows,
            args.report.transcripts.as_deref(),
            Some(html),
            &options.pricing,
            calibrations.list(),
            &notes,
        )?;
    }
    let kappa_ok = calibrations.meet(args.min_kappa, args.max_injection_lift);
    let (name, report) = (&arena.name, &args.report);
    let stops = (result.stopped_at_failure, result.stopped_for_cost);
    let show = super::show::hint(&out, &result.rows, report.transcripts.as_deref());
    let passed = emit_report_with(
        name,
        result.rows,
        report,
        &options.pricing,
        calibrations.verdict,
        calibrations.rubric,
        notes,
    )?;
    if let Some(line) = show {
        eprintln!("{line}");
    }
    let ok = kappa_ok && (passed || rule == ExitRule::Kappa || empty_shard);
    let code = stopped_early(stops).unwrap_or(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    });
    Ok((code, Some(out)))
}
