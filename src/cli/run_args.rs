//! The flags of `tribunal run` (and `judge calibrate`), their parsers, and
//! what they ask for: the [`RunPlan`] (which model, judge, cassettes), the
//! items, the results file.

use super::backend_choice::{BackendChoice, BackendRequest};
use super::heading;
use super::report_opts::ReportOpts;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tribunal::judge::PreparedRun;
use tribunal::judge::internal::run::shard_env::ChosenShard;
use tribunal::judge::{Arena, JudgeError, RunMode};
use tribunal::judge::{JudgeRoute, PlanError, RunPlan};
use tribunal::runtime::BackendKind;
use tribunal::runtime::OnRepeat;

#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = "The flags' names are the same on every subcommand: docs/cli.md.")]
pub(crate) struct RunArgs {
    /// The arena folder (holding dataset.jsonl).
    pub(super) arena: PathBuf,
    /// The model provider; `mock` plays each item's scripted turns.
    #[arg(long, value_enum, default_value_t, help_heading = heading::MODEL)]
    pub(super) backend: BackendChoice,
    /// The model name (live backends); several: one run each, then ranked.
    ///
    /// The model name (required for live backends). Given more than once
    /// (`--model a --model b`), the arena runs on each model in turn, each
    /// into its own results file (default name per model; --out must then
    /// be a folder), `--record`/`--replay`/`--transcripts` in a subfolder
    /// per model, and a leaderboard of the runs is printed last (`tribunal
    /// leaderboard`; the first model is its baseline). In mock mode each
    /// name runs the same scripted answers: it tests the plumbing, not the
    /// models.
    #[arg(long = "model", value_name = "MODEL", help_heading = heading::MODEL)]
    pub(super) models: Vec<String>,
    /// The one model this run is on (the run's `--model`; set by `run`
    /// from `models`).
    #[arg(skip)]
    pub(super) model: Option<String>,
    /// In a mock run over several `--model`s: the name this run stands in
    /// for (its results file's; the mock plays the same script for each).
    #[arg(skip)]
    pub(super) mock_stand_in: Option<String>,
    /// Mock mode: the scripted model waits MS milliseconds per turn.
    #[arg(long = "mock-latency-ms", allow_negative_numbers = true, value_name = "MS", default_value_t = 0, help_heading = heading::MODEL, hide_short_help = true)]
    pub(super) mock_latency: u64,
    /// A person at this terminal decides each tool call (`ask`).
    ///
    /// `ask`: a person at this terminal decides each tool call before it
    /// runs (shown with its arguments; y / n / edit / quit), one run at a
    /// time, over the arena's [approval]. Refused without a terminal.
    #[arg(long, value_enum, value_name = "MODE", conflicts_with = "batch", help_heading = heading::MODEL, hide_short_help = true)]
    pub(super) approve: Option<ApproveChoice>,
    /// The provider of the `rubric` checks' judge.
    ///
    /// Default: `[judge]` backend in arena.toml, else --backend. A live
    /// judge on a mock run grades the mock answers (--record, --replay and
    /// --cache are then the judge's): how a judge is calibrated against
    /// `gold_rubric`.
    #[arg(long, value_enum, help_heading = heading::JUDGE, hide_short_help = true)]
    pub(super) judge_backend: Option<BackendChoice>,
    /// The `rubric` checks' judge model.
    ///
    /// The `rubric` checks' judge model (live backends; `[judge]` model in
    /// arena.toml otherwise). Records into and replays from
    /// DIR/<arena>.judge.jsonl beside the run's cassette.
    #[arg(long, value_name = "MODEL", help_heading = heading::JUDGE, hide_short_help = true)]
    pub(super) judge_model: Option<String>,
    /// The API root of the judge's server.
    ///
    /// The API root of the judge's server (default: --base-url when the
    /// judge is on the run's provider, else OPENAI_BASE_URL or
    /// ANTHROPIC_BASE_URL, else the provider's own); a mock run with a live
    /// judge takes it too.
    #[arg(long, value_name = "URL", help_heading = heading::JUDGE, hide_short_help = true)]
    pub(super) judge_base_url: Option<String>,
    /// Add the judge's calibration against the gold labels to the report.
    ///
    /// Add the judge's calibration to the report: its verdicts against the
    /// items' gold verdicts (each item's `verdict_equals` check), and the
    /// rubric judge's against `gold_rubric` labels — accuracy, Cohen's
    /// kappa, true-RED and true-GREEN rates with 95% intervals,
    /// self-agreement over `--repeat`, and the disagreements.
    #[arg(long, help_heading = heading::JUDGE, hide_short_help = true)]
    pub(super) calibrate: bool,
    /// Each run's deadline in seconds, repair turn included.
    ///
    /// Each run's deadline in seconds, repair turn included (default:
    /// `deadline_secs` in arena.toml's [budget]; it is part of the config
    /// hash).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = parse_deadline, help_heading = heading::BUDGETS)]
    pub(super) deadline_secs: Option<Duration>,
    /// Stop starting new item runs once the finished ones spent this much.
    ///
    /// Stop starting new item runs once the finished ones have spent this
    /// many USD (at the pricing table's prices; needs the model priced, or
    /// a mock or local server). Exit 1 when it stops a run.
    #[arg(long, allow_negative_numbers = true, value_name = "USD", value_parser = parse_usd, help_heading = heading::BUDGETS, hide_short_help = true)]
    pub(super) max_cost_usd: Option<f64>,
    /// What a turn that only repeats earlier tool calls gets: finalize or notice.
    ///
    /// When every tool call of a turn repeats an earlier call of the run:
    /// `finalize` asks for the answer with tools disabled, `notice` answers
    /// the repeats with a notice and goes on. Default: `on_repeat` in
    /// arena.toml's [budget], else finalize.
    #[arg(long, value_enum, value_name = "POLICY", help_heading = heading::BUDGETS, hide_short_help = true)]
    pub(super) on_repeat: Option<OnRepeatChoice>,
    /// Run only these items (ids, comma-separated or the flag repeated).
    ///
    /// Run only these items (ids, comma-separated or the flag repeated); an
    /// id the dataset does not have is an error.
    #[arg(long, value_name = "ID,…", value_delimiter = ',', help_heading = heading::SCALE)]
    pub(super) items: Vec<String>,
    /// Run only the first N items (after --items), in dataset order.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = heading::SCALE, hide_short_help = true)]
    pub(super) limit: Option<u64>,
    /// Runs per item: per-item pass rates, pass@k and pass^k.
    ///
    /// Runs per item: reports per-item pass rates, pass@k and pass^k, the
    /// per-repeat spread and the unstable items.
    #[arg(long, value_name = "K", default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..), help_heading = heading::SCALE)]
    pub(super) repeat: u32,
    /// The results file. Default: runs/<arena>.<backend>-<model>.jsonl.
    ///
    /// The results file. Default: runs/<arena>.<backend>-<model>.jsonl
    /// (runs/<arena>.mock.jsonl in mock mode; `.batch`, `.replay` and
    /// `.judge-<backend>-<model>` added by those flags; `.shard-I-of-N`
    /// for a shard), so runs of other models never collide. A folder (one
    /// that exists, or a path ending in `/`) gets that file name inside it:
    /// how each shard of a scheduled run writes its own file.
    #[arg(long, value_name = "PATH", help_heading = heading::RESULTS)]
    pub(super) out: Option<PathBuf>,
    /// Also write the HTML report to FILE.
    ///
    /// Also write the HTML report (one self-contained page: charts, each
    /// item's checks and, with --transcripts, its transcript) to FILE.
    #[arg(long, value_name = "FILE", help_heading = heading::RESULTS)]
    pub(super) html: Option<PathBuf>,
    /// Keep the finished rows of --out and run only the missing ones.
    #[arg(long, help_heading = heading::RESULTS)]
    pub(super) resume: bool,
    /// Re-run the ERROR rows of --out (and the missing ones).
    #[arg(long, help_heading = heading::RESULTS, hide_short_help = true)]
    pub(super) retry_errors: bool,
    /// Replace the rows of --out even when they are another run's.
    ///
    /// Replace the rows of --out even when they are another run's (another
    /// arena or config hash); without it such a file is refused, exit 2.
    #[arg(long, conflicts_with_all = ["resume", "retry_errors"], help_heading = heading::RESULTS, hide_short_help = true)]
    pub(super) force: bool,
    /// Record every live request/answer into DIR/<arena>.jsonl.
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS, hide_short_help = true)]
    pub(super) record: Option<PathBuf>,
    /// Serve answers from DIR/<arena>.jsonl (a cassette written by --record).
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS)]
    pub(super) replay: Option<PathBuf>,
    /// Answer requests asked before from a cache in DIR.
    ///
    /// Answer requests asked before from a cache in DIR, and cache new
    /// answers there: a rerun after a change to checks or reports makes no
    /// model call; `--repeat K` keeps K distinct samples. Errors are never
    /// cached. Live backends only; not with `--replay`.
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS, hide_short_help = true)]
    pub(super) cache: Option<PathBuf>,
    /// No progress: neither the bar nor a line per item.
    ///
    /// No progress: neither the bar nor a line per item (the report and
    /// errors still print).
    #[arg(short, long, help_heading = heading::OUTPUT)]
    pub(super) quiet: bool,
    /// Stop starting new item runs after the first FAIL or ERROR (exit 1).
    ///
    /// Stop starting new item runs after the first that does not pass (FAIL
    /// or ERROR); runs in flight finish, --resume runs the rest. Exit 1.
    #[arg(long, help_heading = heading::GATE)]
    pub(super) fail_fast: bool,
    /// Exit 1 when a calibration's kappa is below X (implies --calibrate).
    ///
    /// Exit 1 when a calibration's kappa is below X or undefined (implies
    /// --calibrate).
    #[arg(long, value_name = "X", allow_hyphen_values = true, help_heading = heading::GATE, hide_short_help = true)]
    pub(super) min_kappa: Option<f64>,
    /// Exit 1 when a calibration's injection lift is above X.
    ///
    /// Exit 1 when a calibration's injection lift is above X or undefined
    /// (implies --calibrate): how much more often the judge says GREEN to a
    /// wrong answer or change carrying an injection than to its clean twin
    /// (items with `twin_of` and `injection`), as a difference of rates,
    /// e.g. 0.05 for 5 points.
    #[arg(long, value_name = "X", allow_hyphen_values = true, help_heading = heading::GATE, hide_short_help = true)]
    pub(super) max_injection_lift: Option<f64>,
    /// Runs in flight at once, at least 1 (with --batch: every run).
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = 8, value_parser = parse_concurrency, help_heading = heading::SCALE)]
    pub(super) concurrency: usize,
    /// Send the model requests through the provider's batch API (half price).
    ///
    /// Send the model requests through the provider's batch API (half
    /// price; the provider runs them within 24 hours): every run's next
    /// turn goes into one batch per round, tools run here between rounds.
    /// The batch ids are kept in <results>.batches, so `--resume` after a
    /// kill polls the same batches instead of paying twice. The run
    /// deadline does not apply. Live backends; not with --record,
    /// --replay, --cache or --max-cost-usd.
    #[arg(long, help_heading = heading::SCALE, hide_short_help = true)]
    pub(super) batch: bool,
    /// With --batch: seconds between polls of a batch in flight.
    #[arg(long = "batch-poll-secs", allow_negative_numbers = true, value_name = "SECS", default_value_t = 30.0, value_parser = parse_poll, help_heading = heading::SCALE, hide_short_help = true)]
    pub(super) batch_poll: f64,
    /// Run only shard I of N (stable by item id), e.g. 2/4.
    ///
    /// Run only shard I of N (stable by item id), e.g. 2/4. Without it:
    /// `TRIBUNAL_SHARD=I/N`, else a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX` (0-based) with --shards.
    #[arg(long, value_name = "I/N", help_heading = heading::SCALE, hide_short_help = true)]
    pub(super) shard: Option<String>,
    /// The shard count N for `JOB_COMPLETION_INDEX`.
    ///
    /// The shard count N for `JOB_COMPLETION_INDEX` (the Job's
    /// completions); default: `TRIBUNAL_SHARDS`. With --shard or
    /// `TRIBUNAL_SHARD` it must equal their N.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = heading::SCALE, hide_short_help = true)]
    pub(super) shards: Option<u32>,
    #[command(flatten)]
    pub(super) backend_flags: super::backend_flags::BackendFlags,
    #[command(flatten)]
    pub(super) user_route: super::user_flags::UserRouteFlags,
    #[command(flatten)]
    pub(super) report: ReportOpts,
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
pub(super) enum OnRepeatChoice {
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
    /// What the default results file is named after
    /// ([`RunLabel`](super::results_path::RunLabel)).
    pub(super) fn label(&self) -> super::results_path::RunLabel<'_> {
        super::results_path::RunLabel {
            backend: self.backend.live().map(BackendKind::as_str),
            model: self.model.as_deref().or(self.mock_stand_in.as_deref()),
            batch: self.batch,
            replay: self.replay.is_some(),
            judge_backend: self
                .judge_backend
                .map(|j| j.live().map_or("mock", BackendKind::as_str)),
            judge_model: self.judge_model.as_deref(),
        }
    }

    /// What `--resume`, `--retry-errors` and `--force` do with the rows of
    /// `--out` (`--retry-errors` also resumes).
    pub(super) fn mode(&self) -> RunMode {
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

/// The live backends' names, for a message: `openai-chat, openai-responses, anthropic`.
pub(super) fn live_backend_names() -> String {
    BackendKind::ALL.map(BackendKind::as_str).join(", ")
}

impl RunArgs {
    /// What the flags ask for, checked against each other: the mock
    /// refuses `--model` and every live flag (except with a live judge on a
    /// mock run, whose cassettes and cache they are); a live backend needs
    /// `--model`; `--batch` needs a live backend and refuses cassettes,
    /// the cache and `--max-cost-usd`. With what the flags change of the
    /// arena (`--items`, `--limit`, `--deadline-secs`, `--on-repeat`, the
    /// backend flags).
    pub(super) fn plan(&self, arena: &Arena) -> anyhow::Result<RunPlan> {
        let judge = match self.judge_backend {
            None => JudgeRoute::FromArena,
            Some(choice) => choice.live().map_or(JudgeRoute::Mock, JudgeRoute::Live),
        };
        // Mock answers graded by a live judge: --record, --replay and
        // --cache are the judge's.
        let judge_only = self.backend.live().is_none() && judge.live_judge_on_mock(arena);
        // Likewise a live user talking with the scripted agent.
        let side_only = judge_only
            || (self.backend.live().is_none() && self.user_route.live_user_on_mock(arena));
        let own = |dir: &Option<PathBuf>| dir.clone().filter(|_| !side_only);
        let model = BackendRequest {
            choice: self.backend,
            model: self.model.as_deref(),
            record: own(&self.record),
            replay: own(&self.replay),
            cache: own(&self.cache),
            flags: &self.backend_flags,
        }
        .check()?;
        let plan = match model {
            Some((kind, model)) => RunPlan::live(kind, model),
            None => RunPlan::mock(),
        };
        let live_judge = !plan.is_mock() || judge_only;
        if self.judge_base_url.is_some() && !(live_judge && arena.has_rubric()) {
            anyhow::bail!(
                "--judge-base-url needs a live judge: an arena with rubric checks on a live --backend, or --judge-backend on a mock run"
            );
        }
        let batch = self.batch_poll(&plan)?;
        let plan = self.user_route.applied(plan, arena)?;
        Ok(plan
            .with_items(self.items.clone())
            .with_limit(self.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
            .with_deadline(self.deadline_secs)
            .with_on_repeat(self.on_repeat.map(OnRepeat::from))
            .with_backend(self.backend_flags.settings()?)
            .with_batch(batch)
            .with_judge(judge)
            .with_judge_model(self.judge_model.clone())
            .with_mock_latency(Duration::from_millis(self.mock_latency))
            .with_record(self.record.clone())
            .with_replay(self.replay.clone())
            .with_cache(self.cache.clone())
            .with_base_url(self.backend_flags.base_url().map(str::to_string))
            .with_judge_base_url(self.judge_base_url.clone()))
    }
}

impl RunArgs {
    /// The arena as loaded (`None` when it has lint problems, printed
    /// here); what the flags change of it is the plan's.
    pub(super) fn arena(&self) -> anyhow::Result<Option<Arena>> {
        super::folder::require_folder(&self.arena, "the arena folder")?;
        let arena = match Arena::load(&self.arena) {
            Ok(a) => a,
            Err(JudgeError::Lint(report)) => {
                for line in super::lint::located(&self.arena, &report.problems) {
                    eprintln!("{line}");
                }
                eprintln!(
                    "tribunal: {}: {} problem(s); see `tribunal lint`",
                    self.arena.display(),
                    report.problems.len()
                );
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        Ok(Some(arena))
    }

    /// The problems that keep the prepared run's items from running on the
    /// mock (printed here; none on a live run).
    pub(super) fn mock_problems(&self, prepared: &PreparedRun) -> usize {
        let problems = prepared.mock_problems();
        for line in super::lint::located(&self.arena, &problems) {
            eprintln!("{line}");
        }
        if !problems.is_empty() {
            eprintln!(
                "tribunal: {}: {} item(s) cannot run in mock mode; see `tribunal lint --mock`",
                self.arena.display(),
                problems.len()
            );
        }
        problems.len()
    }

    /// `--batch`'s poll interval (`None` without `--batch`), checked
    /// against the other flags.
    fn batch_poll(&self, plan: &RunPlan) -> anyhow::Result<Option<Duration>> {
        if !self.batch {
            return Ok(None);
        }
        if plan.is_mock() {
            anyhow::bail!("--batch needs a live --backend ({})", live_backend_names());
        }
        if self.record.is_some() || self.replay.is_some() || self.cache.is_some() {
            anyhow::bail!(
                "--batch does not record, replay or cache: drop --record, --replay and --cache"
            );
        }
        if self.max_cost_usd.is_some() {
            anyhow::bail!(
                "--batch starts every item at once, so --max-cost-usd could stop none: drop it (max_cost_usd per run in arena.toml still holds)"
            );
        }
        Ok(Some(Duration::from_secs_f64(self.batch_poll)))
    }
}

/// A [`PlanError`] in the words of the flags that fix it (`dir`: the arena
/// folder as given).
pub(super) fn plan_error(e: PlanError, dir: &Path) -> anyhow::Error {
    match e {
        PlanError::UnknownItem { id, count, first } => anyhow::anyhow!(
            "--items: {} has no item {id:?} (its {count} item(s) start {})",
            dir.display(),
            first.join(", ")
        ),
        PlanError::NoLiveJudge => anyhow::anyhow!(
            "rubric checks on a live run need a live judge backend (--judge-backend {}); the mock judge plays only in mock mode",
            live_backend_names()
        ),
        PlanError::NoJudgeModel { arena } => anyhow::anyhow!(
            "{arena} has rubric checks: name their judge with --judge-model or `model` in [judge] of arena.toml"
        ),
        e => e.into(),
    }
}

/// Says which shard runs (and where it was read from) and whether it holds
/// none of `arena`'s items: more shards than items leaves some empty, not a
/// failure (the shard's results file is still written, for merge; the
/// merged report gates), but said. Whether the shard is empty.
pub(super) fn say_shard(chosen: Option<&ChosenShard>, arena: &Arena) -> bool {
    let Some(c) = chosen else {
        return false;
    };
    eprintln!("shard {} (from {})", c.shard, c.from);
    let empty = !arena.items.iter().any(|i| c.shard.contains(&i.id));
    if empty {
        let n = arena.items.len();
        eprintln!(
            "shard {} holds none of the arena's {n} item(s): nothing to run",
            c.shard
        );
    }
    empty
}

impl RunArgs {
    /// Whether these flags ask a live model, the run's, the judge's or the
    /// user's,
    /// rather than the mock or a cassette (the docs mark such commands).
    #[cfg(test)]
    pub(super) fn needs_live_model(&self) -> bool {
        let live = |c: Option<BackendChoice>| c.and_then(BackendChoice::live).is_some();
        let prefixed = self
            .models
            .iter()
            .filter_map(|m| super::backend_choice::split_provider(m))
            .any(|(c, _)| live(Some(c)));
        let model = live(Some(self.backend)) || prefixed;
        let user = live(self.user_route.user_backend);
        (model || live(self.judge_backend) || user) && self.replay.is_none()
    }

    /// `--min-kappa` and `--max-injection-lift` are within -1 and 1.
    pub(super) fn check_gates(&self) -> anyhow::Result<()> {
        if let Some(m) = self.min_kappa.filter(|m| !(-1.0..=1.0).contains(m)) {
            anyhow::bail!("--min-kappa must be between -1 and 1, got {m}");
        }
        if let Some(x) = self
            .max_injection_lift
            .filter(|x| !(-1.0..=1.0).contains(x))
        {
            anyhow::bail!(
                "--max-injection-lift must be between -1 and 1 (a difference of rates), got {x}"
            );
        }
        Ok(())
    }
}

/// `--approve`: who decides tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ApproveChoice {
    /// A person at the terminal, every call.
    Ask,
}
