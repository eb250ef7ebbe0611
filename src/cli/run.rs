//! `tribunal run ARENA`: lint the arena, run every item against the mock
//! (default) or a live backend, append result rows, print the report.
//! Exit 0 when every item passes (or the pass rate reaches
//! `--min-pass-rate`) and, with `--min-kappa`, the calibration's kappa
//! reaches it; 1 otherwise; 2 on a usage, config or lint error. The flags
//! and what they ask for are in `run_args.rs`; the run itself is the
//! judge's (`RunPlan`, `run_arena`).

use super::backend_choice::read_provider_prefix;
use super::report_opts::emit_report_with;
pub(crate) use super::run_args::RunArgs;
use super::run_args::{out_path, plan_error};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use tribunal::judge::calibration::calibrate_rubric;
use tribunal::judge::run::CostStop;
use tribunal::judge::shard_env::{ShardFlags, resolve_shard_from_process};
use tribunal::judge::{
    Console, JudgeError, Progress, RunOptions, Silent, calibrate, read_rows, run_arena,
};

/// What decides the exit code of a finished run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitRule {
    /// `run`: the pass rate, and `--min-kappa` when given.
    PassRate,
    /// `judge calibrate`: `--min-kappa` alone (a disagreeing judge fails
    /// checks, which is what calibration measures, not a failure of it).
    Kappa,
}

pub(crate) fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    run_gated(args, ExitRule::PassRate)
}

/// Runs the arena; `rule` says what the exit code reflects. Under
/// [`ExitRule::Kappa`] the calibration is always part of the report.
pub(crate) fn run_gated(mut args: RunArgs, rule: ExitRule) -> anyhow::Result<ExitCode> {
    // `--model openai/gpt-4.1-mini` without `--backend` names both.
    read_provider_prefix(&mut args.backend, &mut args.model);
    args.calibrate |= rule == ExitRule::Kappa || args.min_kappa.is_some();
    if let Some(m) = args.min_kappa.filter(|m| !(-1.0..=1.0).contains(m)) {
        anyhow::bail!("--min-kappa must be between -1 and 1, got {m}");
    }
    let Some(mut arena) = args.arena()? else {
        return Ok(ExitCode::from(2));
    };
    if rule == ExitRule::Kappa
        && args.out.is_none()
        && args.shard.is_none()
        && args.shards.is_none()
    {
        // Beside `run`'s results, never over them.
        args.out = Some(Path::new("runs").join(format!("{}.calibrate.jsonl", arena.name)));
    }
    let (gold, gold_rubric) = (arena.gold_verdicts(), arena.gold_rubric());
    if args.calibrate && gold.is_empty() && gold_rubric.is_empty() {
        anyhow::bail!(
            "{}: no item has a gold verdict (a verdict_equals check) or gold_rubric labels to calibrate against",
            args.arena.display()
        );
    }
    let flags = ShardFlags {
        shard: args.shard.as_deref(),
        shards: args.shards,
    };
    let chosen = resolve_shard_from_process(flags)?;
    let shard = chosen.as_ref().map(|c| c.shard);
    args.report.check()?;
    // Read before anything runs: a bad --pricing file fails fast.
    let pricing = super::report_opts::pricing(&arena.pricing, args.report.pricing.as_deref())?;
    let plan = args.plan(&arena)?;
    plan.apply_judge(&mut arena);
    let backends = plan.backends(&arena).map_err(plan_error)?;
    if args.mock_problems(&arena, &plan) > 0 {
        return Ok(ExitCode::from(2));
    }
    let out = out_path(args.out.as_deref(), &arena.name, shard);
    // More shards than items leaves some empty: not a failure (the shard's
    // results file is still written, for merge; the merged report gates),
    // but said.
    let empty_shard = shard.is_some_and(|s| !arena.items.iter().any(|i| s.contains(&i.id)));
    if let Some(c) = &chosen {
        eprintln!("shard {} (from {})", c.shard, c.from);
        if empty_shard {
            let n = arena.items.len();
            eprintln!(
                "shard {} holds none of the arena's {n} item(s): nothing to run",
                c.shard
            );
        }
    }
    let options = RunOptions::new(out.clone())
        .with_concurrency(args.concurrency)
        .with_repeat(args.repeat)
        .with_shard(shard)
        .with_mode(args.mode())
        .with_transcripts(args.report.transcripts.clone())
        .with_pricing(pricing)
        .with_max_total_usd(args.max_cost_usd)
        .with_fail_fast(args.fail_fast)
        .with_batch(args.batch(&plan, &arena)?);
    let progress: Box<dyn Progress> = match args.quiet {
        true => Box::new(Silent),
        false => Box::new(Console::new()),
    };
    let runtime = super::tokio_runtime()?;
    // A wrong base URL or key is one error before any item, not one per
    // item: the live backends are asked `GET /models` (no tokens) first.
    if let Err(e) = runtime.block_on(backends.preflight()) {
        anyhow::bail!(
            "{e}; no item ran (checked before the run: a server that is not running, a wrong --base-url, or a key the server refuses)"
        );
    }
    // `[[mcp]]` servers start on the runtime the runs use (their
    // connections' tasks live there) and stop when the arena is dropped.
    let env = |name: &str| std::env::var_os(name);
    let arena = match runtime.block_on(plan.start_tools(arena, &env)) {
        Ok(arena) => Arc::new(arena),
        Err(e) => {
            eprintln!("tribunal: {}: {e} [{}]", args.arena.display(), e.code());
            return Ok(ExitCode::from(2));
        }
    };
    // Ctrl-C stops the run; the rows finished so far are in the results
    // file already, and --resume runs the rest.
    let interrupted = runtime.block_on(async {
        tokio::select! {
            result = run_arena(arena.clone(), backends, &options, progress.as_ref()) => Some(result),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let Some(result) = interrupted else {
        // The rows are read as `--resume` will read them (a torn last line
        // is not one).
        let kept = read_rows(&out).map_or(0, |read| read.rows.len());
        eprintln!(
            "\ntribunal: interrupted: {kept} finished run(s) are kept in {}; the same command with --resume runs the rest",
            out.display()
        );
        return Ok(ExitCode::from(130));
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
    let calibration = (args.calibrate && !gold.is_empty()).then(|| calibrate(&gold, &result.rows));
    let rubric_calibration = (args.calibrate && !gold_rubric.is_empty())
        .then(|| calibrate_rubric(&gold_rubric, &result.rows));
    let mut kappa_ok = true;
    for c in calibration.iter().chain(&rubric_calibration) {
        if let Some(min) = args.min_kappa.filter(|min| !c.meets(*min)) {
            eprintln!(
                "tribunal: {}: {} is below --min-kappa {min}",
                c.title(),
                c.kappa_text()
            );
            kappa_ok = false;
        }
    }
    let (name, report) = (&arena.name, &args.report);
    let stops = (result.stopped_at_failure, result.stopped_for_cost);
    let passed = emit_report_with(
        name,
        result.rows,
        report,
        &options.pricing,
        calibration,
        rubric_calibration,
    )?;
    let ok = kappa_ok && (passed || rule == ExitRule::Kappa || empty_shard);
    Ok(stopped_early(stops).unwrap_or(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }))
}

/// Exit 1, said, when `--fail-fast` or `--max-cost-usd` stopped starting runs.
fn stopped_early((at_failure, for_cost): (Option<usize>, Option<CostStop>)) -> Option<ExitCode> {
    if let Some(not_started) = at_failure {
        eprintln!(
            "tribunal: --fail-fast: stopped starting item runs after one did not pass; {not_started} item run(s) not started (--resume runs them)"
        );
    } else if let Some(stop) = for_cost {
        eprintln!(
            "tribunal: stopped starting item runs: ${:.6} spent of --max-cost-usd ${}; {} item run(s) not started (--resume runs them)",
            stop.spent_usd, stop.max_usd, stop.not_started
        );
    } else {
        return None;
    }
    Some(ExitCode::from(1))
}
