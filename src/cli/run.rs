//! `tribunal run ARENA`: lint the arena, run every item against the mock
//! (default) or a live backend, append result rows, print the report.
//! Exit 0 when every item passes (or the pass rate reaches
//! `--min-pass-rate`) and, with `--min-kappa`, the calibration's kappa
//! reaches it; 1 otherwise; 2 on a usage, config or lint error.

use super::backend_choice::{BackendChoice, BackendRequest, Chosen, read_provider_prefix};
use super::report_opts::{ReportOpts, emit_report_with};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tribunal::judge::batch::BatchSettings;
use tribunal::judge::calibration::calibrate_rubric;
use tribunal::judge::mcp::{McpCassette, start_servers};
use tribunal::judge::shard_env::{ShardFlags, resolve_shard_from_process};
use tribunal::judge::{
    Arena, BackendFactory, Console, JudgeError, MockBackends, MockWithJudge, Progress, RunMode,
    RunOptions, Shard, SharedBackend, Silent, calibrate, read_rows, run_arena,
};
use tribunal::runtime::OnRepeat;
use tribunal::runtime::backend::batch::connect_batch;
use tribunal::runtime::backend::{
    BackendKind, BackendOptions, base_url_from_env, connect, is_hosted,
};

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The arena folder (holding dataset.jsonl).
    arena: PathBuf,
    /// The model provider; `mock` plays each item's scripted turns.
    #[arg(long, value_enum, default_value_t)]
    backend: BackendChoice,
    /// The model name (required for live backends).
    #[arg(long)]
    model: Option<String>,
    /// Record every live request/answer into DIR/<arena>.jsonl.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Serve answers from DIR/<arena>.jsonl (a cassette written by --record).
    #[arg(long, value_name = "DIR")]
    replay: Option<PathBuf>,
    /// Runs in flight at once, at least 1 (with --batch: every run).
    #[arg(long, default_value_t = 8, value_parser = parse_concurrency)]
    concurrency: usize,
    /// Send the model requests through the provider's batch API (half
    /// price; the provider runs them within 24 hours): every run's next
    /// turn goes into one batch per round, tools run here between rounds.
    /// The batch ids are kept in <results>.batches, so `--resume` after a
    /// kill polls the same batches instead of paying twice. The run
    /// deadline does not apply. Live backends; not with --record,
    /// --replay, --cache or --max-cost-usd.
    #[arg(long)]
    batch: bool,
    /// With --batch: seconds between polls of a batch in flight.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = parse_poll)]
    batch_poll: f64,
    /// Answer requests asked before from a cache in DIR, and cache new
    /// answers there: a rerun after a change to checks or reports makes no
    /// model call; `--repeat K` keeps K distinct samples. Errors are never
    /// cached. Live backends only; not with `--replay`.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Stop starting new item runs after the first that does not pass (FAIL
    /// or ERROR); runs in flight finish, --resume runs the rest. Exit 1.
    #[arg(long)]
    fail_fast: bool,
    /// No progress: neither the bar nor a line per item (the report and
    /// errors still print).
    #[arg(short, long)]
    quiet: bool,
    /// Stop starting new item runs once the finished ones have spent this
    /// many USD (at the pricing table's prices; needs the model priced, or
    /// a mock or local server). Exit 1 when it stops a run.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    max_cost_usd: Option<f64>,
    /// Runs per item: reports per-item pass rates, pass@k and pass^k, the per-repeat spread and the unstable items.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Mock mode: the scripted model waits MS milliseconds per turn.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    mock_latency: u64,
    /// The results file. Default: runs/<arena>.jsonl (runs/<arena>.shard-I-of-N.jsonl).
    /// A folder (one that exists, or a path ending in `/`) gets that file
    /// name inside it: how each shard of a scheduled run writes its own file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Keep the finished rows of --out and run only the missing ones.
    #[arg(long)]
    resume: bool,
    /// Re-run the ERROR rows of --out (and the missing ones).
    #[arg(long)]
    retry_errors: bool,
    /// Each run's deadline in seconds, repair turn included (default:
    /// `deadline_secs` in arena.toml's [budget]; it is part of the config
    /// hash).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = parse_deadline)]
    deadline_secs: Option<Duration>,
    /// Run only these items (ids, comma-separated or the flag repeated); an
    /// id the dataset does not have is an error.
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    items: Vec<String>,
    /// Run only the first N items (after --items), in dataset order.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// Replace the rows of --out even when they are another run's (another
    /// arena or config hash); without it such a file is refused, exit 2.
    #[arg(long, conflicts_with_all = ["resume", "retry_errors"])]
    force: bool,
    /// Run only shard I of N (stable by item id), e.g. 2/4. Without it:
    /// `TRIBUNAL_SHARD=I/N`, else a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX` (0-based) with --shards.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// The shard count N for `JOB_COMPLETION_INDEX` (the Job's
    /// completions); default: `TRIBUNAL_SHARDS`. With --shard or
    /// `TRIBUNAL_SHARD` it must equal their N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    shards: Option<u32>,
    /// The provider of the `rubric` checks' judge. Default: `[judge]`
    /// backend in arena.toml, else --backend. A live judge on a mock run
    /// grades the mock answers (--record, --replay and --cache are then
    /// the judge's): how a judge is calibrated against `gold_rubric`.
    #[arg(long, value_enum)]
    judge_backend: Option<BackendChoice>,
    /// The `rubric` checks' judge model (live backends; `[judge]` model in
    /// arena.toml otherwise). Records into and replays from
    /// DIR/<arena>.judge.jsonl beside the run's cassette.
    #[arg(long, value_name = "MODEL")]
    judge_model: Option<String>,
    /// Add the judge's calibration to the report: its verdicts against the
    /// items' gold verdicts (each item's `verdict_equals` check), and the
    /// rubric judge's against `gold_rubric` labels — accuracy, Cohen's
    /// kappa, true-RED and true-GREEN rates with 95% intervals,
    /// self-agreement over `--repeat`, and the disagreements.
    #[arg(long)]
    calibrate: bool,
    /// Exit 1 when a calibration's kappa is below X or undefined (implies
    /// --calibrate).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    min_kappa: Option<f64>,
    /// When every tool call of a turn repeats an earlier call of the run:
    /// `finalize` asks for the answer with tools disabled, `notice` answers
    /// the repeats with a notice and goes on. Default: `on_repeat` in
    /// arena.toml's [budget], else finalize.
    #[arg(long, value_enum, value_name = "POLICY")]
    on_repeat: Option<OnRepeatChoice>,
    #[command(flatten)]
    backend_flags: super::backend_flags::BackendFlags,
    #[command(flatten)]
    report: ReportOpts,
}

/// Keeps the items `--items` names (all without it), then the first
/// `--limit` of them. Item ids are not in the config hash: a smaller run's
/// rows compare and resume with a whole run's.
fn select_items(
    arena: &mut Arena,
    ids: &[String],
    limit: Option<u64>,
    dir: &Path,
) -> anyhow::Result<()> {
    if !ids.is_empty() {
        if let Some(unknown) = ids
            .iter()
            .find(|id| !arena.items.iter().any(|i| &i.id == *id))
        {
            let known: Vec<&str> = arena.items.iter().take(5).map(|i| i.id.as_str()).collect();
            anyhow::bail!(
                "--items: {} has no item {unknown:?} (its {} item(s) start {})",
                dir.display(),
                arena.items.len(),
                known.join(", ")
            );
        }
        arena.items.retain(|i| ids.contains(&i.id));
    }
    if let Some(n) = limit {
        arena
            .items
            .truncate(usize::try_from(n).unwrap_or(usize::MAX));
    }
    Ok(())
}

/// `--concurrency`: a count of runs in flight, at least 1.
fn parse_concurrency(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "{s:?} is not a number of runs in flight (1 or more)"
        )),
    }
}

/// `--on-repeat`: the [`OnRepeat`] policies, as clap lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OnRepeatChoice {
    Finalize,
    Notice,
}

impl From<OnRepeatChoice> for OnRepeat {
    fn from(choice: OnRepeatChoice) -> Self {
        match choice {
            OnRepeatChoice::Finalize => OnRepeat::Finalize,
            OnRepeatChoice::Notice => OnRepeat::Notice,
        }
    }
}

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
    if let Some(m) = args.min_kappa
        && !(-1.0..=1.0).contains(&m)
    {
        anyhow::bail!("--min-kappa must be between -1 and 1, got {m}");
    }
    super::folder::require_folder(&args.arena, "the arena folder")?;
    let mut arena = match Arena::load(&args.arena) {
        Ok(a) => a,
        Err(JudgeError::Lint(report)) => {
            eprintln!("{}", report.render());
            eprintln!(
                "tribunal: {}: {} problem(s); see `tribunal lint`",
                args.arena.display(),
                report.problems.len()
            );
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    select_items(&mut arena, &args.items, args.limit, &args.arena)?;
    if let Some(deadline) = args.deadline_secs {
        arena.budget.deadline = Some(deadline);
    }
    if rule == ExitRule::Kappa
        && args.out.is_none()
        && args.shard.is_none()
        && args.shards.is_none()
    {
        // Beside `run`'s results, never over them.
        args.out = Some(Path::new("runs").join(format!("{}.calibrate.jsonl", arena.name)));
    }
    let gold = arena.gold_verdicts();
    let gold_rubric = arena.gold_rubric();
    if args.calibrate && gold.is_empty() && gold_rubric.is_empty() {
        anyhow::bail!(
            "{}: no item has a gold verdict (a verdict_equals check) or gold_rubric labels to calibrate against",
            args.arena.display()
        );
    }
    let chosen = resolve_shard_from_process(ShardFlags {
        shard: args.shard.as_deref(),
        shards: args.shards,
    })?;
    let shard = chosen.as_ref().map(|c| c.shard);
    args.report.check()?;
    // Read before anything runs: a bad --pricing file fails fast.
    let pricing = super::report_opts::pricing(&arena.pricing, args.report.pricing.as_deref())?;
    // Flags over the arena's [backend] table and budget; the result enters the hash.
    if let Some(policy) = args.on_repeat {
        arena.budget.on_repeat = policy.into();
    }
    arena.backend = arena.backend.overlaid(&args.backend_flags.settings()?);
    if let Some(kind) = args.judge_backend.and_then(BackendChoice::live) {
        arena.judge.backend = Some(kind);
    }
    if let Some(m) = &args.judge_model {
        arena.judge.model = Some(m.clone());
    }
    let backends = backends(&args, &arena)?;
    if backends.is_mock() {
        let problems = if live_judge_on_mock(&args, &arena) {
            arena.mock_agent_problems()
        } else {
            arena.mock_problems()
        };
        if !problems.is_empty() {
            for p in &problems {
                eprintln!("{}: {p}", args.arena.display());
            }
            eprintln!(
                "tribunal: {}: {} item(s) cannot run in mock mode; see `tribunal lint --mock`",
                args.arena.display(),
                problems.len()
            );
            return Ok(ExitCode::from(2));
        }
    }
    let out = out_path(args.out.as_deref(), &arena.name, shard);
    // More shards than items leaves some empty: not a failure (the shard's
    // results file is still written, for merge; the merged report gates),
    // but said.
    let empty_shard = shard.is_some_and(|s| !arena.items.iter().any(|i| s.contains(&i.id)));
    if let Some(c) = &chosen {
        eprintln!("shard {} (from {})", c.shard, c.from);
        if empty_shard {
            eprintln!(
                "shard {} holds none of the arena's {} item(s): nothing to run",
                c.shard,
                arena.items.len()
            );
        }
    }
    let batch = batch_settings(&args, &arena)?;
    let options = RunOptions::new(out.clone())
        .with_concurrency(args.concurrency)
        .with_repeat(args.repeat)
        .with_shard(shard)
        .with_mode(args.mode())
        .with_transcripts(args.report.transcripts.clone())
        .with_pricing(pricing)
        .with_max_total_usd(args.max_cost_usd)
        .with_fail_fast(args.fail_fast)
        .with_batch(batch);
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
    let tools_cassette = |dir: &PathBuf| dir.join(format!("{}.tools.jsonl", arena.name));
    let (record, replay) = (
        args.record.as_ref().map(tools_cassette),
        args.replay.as_ref().map(tools_cassette),
    );
    let cassette = match (&record, &replay) {
        (Some(path), _) => McpCassette::Record(path),
        (None, Some(path)) => McpCassette::Replay(path),
        (None, None) => McpCassette::Live,
    };
    let arena = match runtime.block_on(start_servers(arena, &env, cassette)) {
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
        eprintln!(
            "\ntribunal: interrupted: {} finished run(s) are kept in {}; the same command with --resume runs the rest",
            // The rows are read as `--resume` will read them (a torn
            // last line is not one).
            read_rows(&out).map_or(0, |read| read.rows.len()),
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
        if let Some(min) = args.min_kappa
            && !c.meets(min)
        {
            eprintln!(
                "tribunal: {}: {} is below --min-kappa {min}",
                c.title(),
                c.kappa_text()
            );
            kappa_ok = false;
        }
    }
    let passed = emit_report_with(
        &arena.name,
        result.rows,
        &args.report,
        &options.pricing,
        calibration,
        rubric_calibration,
    )?;
    let ok = kappa_ok && (passed || rule == ExitRule::Kappa || empty_shard);
    let code = if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if let Some(not_started) = result.stopped_at_failure {
        eprintln!(
            "tribunal: --fail-fast: stopped starting item runs after one did not pass; {not_started} item run(s) not started (--resume runs them)"
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(stop) = result.stopped_for_cost {
        eprintln!(
            "tribunal: stopped starting item runs: ${:.6} spent of --max-cost-usd ${}; {} item run(s) not started (--resume runs them)",
            stop.spent_usd, stop.max_usd, stop.not_started
        );
        return Ok(ExitCode::from(1));
    }
    Ok(code)
}

/// The batch API of a `--batch` run: the run's provider and model, with
/// the arena's request settings.
fn batch_settings(args: &RunArgs, arena: &Arena) -> anyhow::Result<Option<BatchSettings>> {
    if !args.batch {
        return Ok(None);
    }
    let Some(kind) = args.backend.live() else {
        anyhow::bail!("--batch needs a live --backend ({})", live_backend_names());
    };
    if args.record.is_some() || args.replay.is_some() || args.cache.is_some() {
        anyhow::bail!(
            "--batch does not record, replay or cache: drop --record, --replay and --cache"
        );
    }
    if args.max_cost_usd.is_some() {
        anyhow::bail!(
            "--batch starts every item at once, so --max-cost-usd could stop none: drop it (max_cost_usd per run in arena.toml still holds)"
        );
    }
    let model = args
        .model
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("--model is required with a live --backend"))?;
    let options = BackendOptions {
        base_url: args.backend_flags.base_url().map(str::to_string),
        ..arena.backend.options()
    };
    let service = connect_batch(kind, model, &options, &|k| std::env::var(k).ok())?;
    Ok(Some(BatchSettings {
        service,
        poll: Duration::from_secs_f64(args.batch_poll),
    }))
}

fn parse_poll(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=3600.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds from 0 to 3600")),
    }
}

/// `--deadline-secs`: a positive, finite number of seconds.
fn parse_deadline(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>().ok().map(Duration::try_from_secs_f64) {
        Some(Ok(d)) if !d.is_zero() => Ok(d),
        _ => Err(format!(
            "{s:?} is not a deadline (a number of seconds above 0)"
        )),
    }
}

fn parse_usd(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "{s:?} is not an amount of USD (a number of at least 0)"
        )),
    }
}

impl RunArgs {
    /// What `--resume`, `--retry-errors` and `--force` do with the rows of
    /// `--out` (`--retry-errors` also resumes).
    fn mode(&self) -> RunMode {
        if self.retry_errors {
            RunMode::RetryErrors
        } else if self.resume {
            RunMode::Resume
        } else if self.force {
            RunMode::Replace
        } else {
            RunMode::Fresh
        }
    }
}

fn backends(args: &RunArgs, arena: &Arena) -> anyhow::Result<Arc<dyn BackendFactory>> {
    let cassette = |dir: &PathBuf| dir.join(format!("{}.jsonl", arena.name));
    // Mock answers graded by a live judge: --record, --replay and --cache
    // are the judge's.
    let judge_only = live_judge_on_mock(args, arena);
    let chosen = BackendRequest {
        choice: args.backend,
        model: args.model.as_deref(),
        record: args.record.as_ref().filter(|_| !judge_only).map(cassette),
        replay: args.replay.as_ref().filter(|_| !judge_only).map(cassette),
        cache: args.cache.clone().filter(|_| !judge_only),
        flags: &args.backend_flags,
        settings: &arena.backend,
    }
    .choose()?;
    let custom_at = |kind: Option<BackendKind>| {
        args.replay.is_none()
            && kind.is_some_and(|k| {
                let url = match args.backend_flags.base_url() {
                    Some(url) => url.to_string(),
                    None => base_url_from_env(k, &|v| std::env::var(v).ok()),
                };
                !is_hosted(k, &url)
            })
    };
    let mock = MockBackends {
        latency: Duration::from_millis(args.mock_latency),
    };
    Ok(match chosen {
        Chosen::Mock if judge_only => {
            let (judge, kind) = judge_backend(args, arena)?;
            Arc::new(MockWithJudge::new(mock, judge, custom_at(Some(kind))))
        }
        Chosen::Mock => Arc::new(mock),
        Chosen::Live(backend) => {
            let kind = args.backend.live();
            let mut shared = SharedBackend::new(backend)
                .replaying(args.replay.is_some())
                .on_custom_endpoint(custom_at(kind));
            if arena.has_rubric() {
                let (judge, judge_kind) = judge_backend(args, arena)?;
                shared = shared.with_judge(judge, custom_at(Some(judge_kind)));
            }
            Arc::new(shared)
        }
    })
}

/// Whether this is a mock run whose rubric checks a live judge grades
/// (`--judge-backend` names a live provider on an arena with rubric checks).
fn live_judge_on_mock(args: &RunArgs, arena: &Arena) -> bool {
    args.backend.live().is_none()
        && arena.has_rubric()
        && args.judge_backend.is_some_and(|b| b.live().is_some())
}

/// The live judge of the arena's `rubric` checks: `[judge]` (with the
/// flags laid over it) or the run's provider, recording into and replaying
/// from `<arena>.judge.jsonl` beside the run's cassette.
fn judge_backend(
    args: &RunArgs,
    arena: &Arena,
) -> anyhow::Result<(Arc<dyn tribunal::runtime::Backend>, BackendKind)> {
    // `--judge-backend` wins (`mock` too, refused below); then `[judge]`;
    // then the run's own.
    let kind = match args.judge_backend {
        Some(choice) => choice.live(),
        None => arena.judge.backend.or(args.backend.live()),
    };
    let Some(kind) = kind else {
        anyhow::bail!(
            "rubric checks on a live run need a live judge backend (--judge-backend {}); the mock judge plays only in mock mode",
            live_backend_names()
        );
    };
    let Some(model) = arena.judge.model.as_deref() else {
        anyhow::bail!(
            "{} has rubric checks: name their judge with --judge-model or `model` in [judge] of arena.toml",
            arena.name
        );
    };
    let cassette = |dir: &PathBuf| dir.join(format!("{}.judge.jsonl", arena.name));
    if let Some(file) = args.record.as_ref().map(cassette) {
        super::folder::create_parent(&file)?;
    }
    let options = BackendOptions {
        record: args.record.as_ref().map(cassette),
        replay: args.replay.as_ref().map(cassette),
        cache: args.cache.clone(),
        ..arena.backend.options()
    };
    Ok((connect(kind, model, &options)?, kind))
}

/// The results file: `--out` as given, or the default file name
/// (`<arena>.jsonl`, `<arena>.shard-I-of-N.jsonl`) inside `--out` when it
/// names a folder (one that exists, or a path ending in a separator), else
/// inside `runs/`.
fn out_path(out: Option<&Path>, arena: &str, shard: Option<Shard>) -> PathBuf {
    let name = match shard {
        Some(s) => format!("{arena}.shard-{}-of-{}.jsonl", s.index, s.count),
        None => format!("{arena}.jsonl"),
    };
    match out {
        Some(path) if names_folder(path) => path.join(name),
        Some(path) => path.to_path_buf(),
        None => Path::new("runs").join(name),
    }
}

/// Whether `path` is an existing folder or is written as one (`results/`).
fn names_folder(path: &Path) -> bool {
    path.is_dir()
        || path
            .as_os_str()
            .to_string_lossy()
            .chars()
            .next_back()
            .is_some_and(std::path::is_separator)
}

/// The live backends' names, for a message: `openai-chat, openai-responses, anthropic`.
fn live_backend_names() -> String {
    BackendKind::ALL.map(BackendKind::as_str).join(", ")
}
