//! `tribunal run ARENA`: lint the arena, run every item against the mock
//! (default) or a live backend, append result rows, print the report.
//! Exit 0 when every item passes (or the pass rate reaches
//! `--min-pass-rate`), 1 otherwise, 2 on a usage, config or lint error.

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tribunal::judge::{
    Arena, BackendFactory, Console, JudgeError, MockBackends, Report, ReportFormat, ResultRow,
    RunOptions, Shard, SharedBackend, run_arena,
};
use tribunal::runtime::backend::{BackendKind, BackendOptions, connect};

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The arena folder (holding dataset.jsonl).
    arena: PathBuf,
    /// mock (default: each item's scripted turns, no key, no network),
    /// openai-chat, openai-responses or anthropic.
    #[arg(long, default_value = "mock")]
    backend: String,
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
    /// Runs per item: reports per-repeat pass rates, pass^k, unstable items.
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
    let report_format = args.report.format()?;
    // Flags over the arena's [backend] table; the result enters the hash.
    arena.backend = arena.backend.overlaid(&args.backend_flags.settings()?);
    let backends = backends(&args, &arena)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&arena.name, shard));
    let options = RunOptions {
        concurrency: args.concurrency,
        repeat: args.repeat,
        shard,
        out,
        resume: args.resume,
        retry_errors: args.retry_errors,
        transcripts: args.report.transcripts.clone(),
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
    emit_report(&arena.name, &result.rows, report_format, &args.report)
}

fn backends(args: &RunArgs, arena: &Arena) -> anyhow::Result<Arc<dyn BackendFactory>> {
    if args.backend == "mock" {
        if args.record.is_some() || args.replay.is_some() {
            anyhow::bail!("--record and --replay need a live --backend");
        }
        if args.backend_flags.any() {
            anyhow::bail!(
                "--output, --temperature and the other backend flags need a live --backend"
            );
        }
        return Ok(Arc::new(MockBackends {
            latency: Duration::from_millis(args.mock_latency),
        }));
    }
    let kind: BackendKind = args.backend.parse()?;
    let model = args
        .model
        .as_deref()
        .context("--model is required with a live --backend")?;
    let cassette = |dir: &Path| dir.join(format!("{}.jsonl", arena.name));
    if let Some(dir) = &args.record {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let options = BackendOptions {
        record: args.record.as_deref().map(cassette),
        replay: args.replay.as_deref().map(cassette),
        ..arena.backend.options()
    };
    let backend = connect(kind, model, &options)?;
    Ok(Arc::new(SharedBackend::new(backend)))
}

fn default_out(arena: &str, shard: Option<Shard>) -> PathBuf {
    let name = match shard {
        Some(s) => format!("{arena}.shard-{}-of-{}.jsonl", s.index, s.count),
        None => format!("{arena}.jsonl"),
    };
    Path::new("runs").join(name)
}

// The report options and output, shared with `merge`.

#[derive(Debug, clap::Args)]
pub(crate) struct ReportOpts {
    /// Report format: terminal (default), json, markdown, junit or html.
    #[arg(long, value_name = "FORMAT", default_value = "terminal")]
    report: String,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    report_file: Option<PathBuf>,
    /// Exit 0 when the pass rate (0..=1) reaches this, even if some items did not pass.
    #[arg(long, value_name = "RATE")]
    min_pass_rate: Option<f64>,
    /// Transcripts folder: `run` writes one file per item and repeat there
    /// (the conversation, usage, timings); `--report html` shows them.
    #[arg(long, value_name = "DIR")]
    pub(crate) transcripts: Option<PathBuf>,
}

impl ReportOpts {
    pub(crate) fn format(&self) -> anyhow::Result<ReportFormat> {
        if let Some(m) = self.min_pass_rate
            && !(0.0..=1.0).contains(&m)
        {
            anyhow::bail!("--min-pass-rate must be between 0 and 1, got {m}");
        }
        if self.is_html() {
            // `html` is rendered by `emit_report` (issue 9), not by `Report`.
            return Ok(ReportFormat::Terminal);
        }
        Ok(self.report.parse()?)
    }

    fn is_html(&self) -> bool {
        self.report.eq_ignore_ascii_case("html")
    }
}

/// Renders and writes the report; the exit code says whether the run passed.
pub(crate) fn emit_report(
    arena: &str,
    rows: &[ResultRow],
    format: ReportFormat,
    opts: &ReportOpts,
) -> anyhow::Result<ExitCode> {
    let report = Report::from_rows(arena, rows);
    if opts.is_html() {
        // Issue 9: the self-contained HTML report.
        super::report::emit_html(
            rows,
            opts.transcripts.as_deref(),
            opts.report_file.as_deref(),
        )?;
        return Ok(if report.passed(opts.min_pass_rate) {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let text = report.render(format);
    match &opts.report_file {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, &text)?;
            eprintln!("{}", report.summary_line());
            if report.mock {
                eprintln!("(mock run: the plumbing works; this says nothing about a model)");
            }
        }
        None => print!("{text}"),
    }
    Ok(if report.passed(opts.min_pass_rate) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
