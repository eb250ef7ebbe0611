//! `tribunal run ARENA`: lint the arena, run every item against the mock
//! (default) or a live backend, append result rows, print the report.
//! Exit 0 when every item passes (or the pass rate reaches
//! `--min-pass-rate`), 1 otherwise, 2 on a usage, config or lint error.

use super::backend_choice::{BackendChoice, BackendRequest, Chosen};
use super::report_opts::{ReportOpts, emit_report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tribunal::judge::{
    Arena, BackendFactory, Console, JudgeError, MockBackends, RunMode, RunOptions, Shard,
    SharedBackend, run_arena,
};
use tribunal::runtime::backend::{base_url_from_env, is_hosted};

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
    /// Runs in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Answer requests asked before from a cache in DIR, and cache new
    /// answers there: a rerun after a change to checks or reports makes no
    /// model call; `--repeat K` keeps K distinct samples. Errors are never
    /// cached. Live backends only; not with `--replay`.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Stop starting new item runs once the finished ones have spent this
    /// many USD (at the pricing table's prices; needs the model priced, or
    /// a mock or local server). Exit 1 when it stops a run.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    max_cost_usd: Option<f64>,
    /// Runs per item: reports per-item pass rates, pass@k and pass^k, the per-repeat spread and the unstable items.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Mock mode: the scripted model waits MS milliseconds per turn.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    mock_latency: u64,
    /// The results file. Default: runs/<arena>.jsonl (runs/<arena>.shard-I-of-N.jsonl).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Keep the finished rows of --out and run only the missing ones.
    #[arg(long)]
    resume: bool,
    /// Re-run the ERROR rows of --out (and the missing ones).
    #[arg(long)]
    retry_errors: bool,
    /// Run only shard I of N (stable by item id), e.g. 2/4.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    #[command(flatten)]
    backend_flags: super::backend_flags::BackendFlags,
    #[command(flatten)]
    report: ReportOpts,
}

pub(crate) fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
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
    let shard: Option<Shard> = args.shard.as_deref().map(str::parse).transpose()?;
    args.report.check()?;
    // Read before anything runs: a bad --pricing file fails fast.
    let pricing = super::report_opts::pricing(&arena.pricing, args.report.pricing.as_deref())?;
    // Flags over the arena's [backend] table; the result enters the hash.
    arena.backend = arena.backend.overlaid(&args.backend_flags.settings()?);
    let backends = backends(&args, &arena)?;
    if backends.is_mock() {
        let problems = arena.mock_problems();
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
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&arena.name, shard));
    let options = RunOptions {
        concurrency: args.concurrency,
        repeat: args.repeat,
        shard,
        out,
        mode: args.mode(),
        transcripts: args.report.transcripts.clone(),
        pricing,
        max_total_usd: args.max_cost_usd,
    };
    let progress = Console::new();
    let result =
        super::tokio_runtime()?.block_on(run_arena(&arena, backends, &options, &progress))?;
    if result.torn_discarded {
        eprintln!(
            "tribunal: discarded a torn last line in {}",
            options.out.display()
        );
    }
    eprintln!("results: {}", options.out.display());
    let code = emit_report(&arena.name, result.rows, &args.report, &options.pricing)?;
    if let Some(stop) = result.stopped_for_cost {
        eprintln!(
            "tribunal: stopped starting item runs: ${:.6} spent of --max-cost-usd ${}; {} item run(s) not started (--resume runs them)",
            stop.spent_usd, stop.max_usd, stop.not_started
        );
        return Ok(ExitCode::from(1));
    }
    Ok(code)
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
    /// What `--resume` and `--retry-errors` do with the rows of `--out`
    /// (`--retry-errors` also resumes).
    fn mode(&self) -> RunMode {
        if self.retry_errors {
            RunMode::RetryErrors
        } else if self.resume {
            RunMode::Resume
        } else {
            RunMode::Fresh
        }
    }
}

fn backends(args: &RunArgs, arena: &Arena) -> anyhow::Result<Arc<dyn BackendFactory>> {
    let cassette = |dir: &PathBuf| dir.join(format!("{}.jsonl", arena.name));
    let chosen = BackendRequest {
        choice: args.backend,
        model: args.model.as_deref(),
        record: args.record.as_ref().map(cassette),
        replay: args.replay.as_ref().map(cassette),
        cache: args.cache.clone(),
        flags: &args.backend_flags,
        settings: &arena.backend,
    }
    .choose()?;
    Ok(match chosen {
        Chosen::Mock => Arc::new(MockBackends {
            latency: Duration::from_millis(args.mock_latency),
        }),
        Chosen::Live(backend) => {
            let kind = args.backend.live();
            let custom = args.replay.is_none()
                && kind.is_some_and(|k| {
                    !is_hosted(k, &base_url_from_env(k, &|v| std::env::var(v).ok()))
                });
            Arc::new(
                SharedBackend::new(backend)
                    .replaying(args.replay.is_some())
                    .on_custom_endpoint(custom),
            )
        }
    })
}

fn default_out(arena: &str, shard: Option<Shard>) -> PathBuf {
    let name = match shard {
        Some(s) => format!("{arena}.shard-{}-of-{}.jsonl", s.index, s.count),
        None => format!("{arena}.jsonl"),
    };
    Path::new("runs").join(name)
}
