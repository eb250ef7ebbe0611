//! The runner: every (item, repeat) of an arena against a backend, with
//! bounded concurrency, result rows appended as runs finish (those ready
//! together in one write, before the runner waits again), resume, retry of
//! ERROR rows, shards, and the cost budgets (per run and over the run).

use crate::arena::Arena;
use crate::backends::BackendFactory;
use crate::batch::{BatchSettings, BatchTurns, Journal, Rounds, journal_path};
use crate::checks::{Check, score};
use crate::error::JudgeError;
use crate::hash::config_hash_of_mode;
use crate::item::Item;
use crate::pricing::Pricing;
use crate::progress::Progress;
use crate::results::{
    JudgeRecord, Outcome, ROW_VERSION, ResultRow, ResultsWriter, latest, read_rows, rewrite,
};
use crate::rubric::{self, Judgement};
use crate::shard::Shard;
use crate::transcript::Transcript;
use futures::{FutureExt, StreamExt};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_runtime::cost::{CostLimit, ModelPrice};
use tribunal_runtime::task::AbortOnDrop;
use tribunal_runtime::{Agent, Budget, Conversation, ErrorCode, RunOutcome, RunReport};

/// How to run an arena: [`RunOptions::new`] with the results file, then
/// the `with_*` setters for what differs from the defaults (so that a new
/// option is never a breaking change for callers).
///
/// ```
/// # use tribunal_judge::{RunMode, RunOptions};
/// let options = RunOptions::new("runs/qa.jsonl")
///     .with_concurrency(8)
///     .with_repeat(3)
///     .with_mode(RunMode::Resume);
/// assert_eq!((options.concurrency, options.repeat), (8, 3));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunOptions {
    /// Runs in flight at once (at least 1).
    pub concurrency: usize,
    /// Runs per item (at least 1).
    pub repeat: u32,
    /// Run only this shard's items. `None`: every item.
    pub shard: Option<Shard>,
    /// The results file (JSON Lines). `None`: the rows are kept only in
    /// memory, in the [`RunResult`] ([`RunOptions::in_memory`]; a caller
    /// that wants them as they finish watches
    /// [`Progress::finished_all`](crate::Progress::finished_all)).
    pub out: Option<PathBuf>,
    /// What the run does with the rows already in `out`.
    pub mode: RunMode,
    /// Write each run's transcript (conversation, usage, timings) as one
    /// file per item and repeat into this folder ([`crate::transcript::Transcript`]).
    /// `None`: no transcripts.
    pub transcripts: Option<PathBuf>,
    /// The prices the cost budgets are checked at (the arena's
    /// `max_cost_usd` per run, `max_total_usd` over the run).
    pub pricing: Pricing,
    /// Stop starting new item runs once the finished ones have spent this
    /// much (USD, at `pricing`). `None`: no limit.
    pub max_total_usd: Option<f64>,
    /// Stop starting new item runs after the first run that does not pass
    /// (FAIL or ERROR); runs already in flight finish and are kept, and
    /// `RunMode::Resume` runs the rest. Default: off.
    pub fail_fast: bool,
    /// Send the model requests through the provider's batch API, one round
    /// of batches per turn ([`crate::batch`]); `backends` then names the
    /// run (its backend, model and output plan must be the batch API's) and
    /// judges rubric checks. `None`: online.
    pub batch: Option<BatchSettings>,
}

impl RunOptions {
    /// Writes the rows to `out`; one run at a time, one run per item, every
    /// item, a fresh results file, no transcripts, the built-in prices, no
    /// spending limit over the run, online.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RunOptions {
            concurrency: 1,
            repeat: 1,
            shard: None,
            out: Some(out.into()),
            mode: RunMode::Fresh,
            transcripts: None,
            pricing: Pricing::default(),
            max_total_usd: None,
            fail_fast: false,
            batch: None,
        }
    }

    /// [`new`](Self::new) without a results file: the rows are only
    /// returned. A fresh run only (nothing to resume), and online (a batch
    /// run keeps its journal beside the results file).
    pub fn in_memory() -> Self {
        RunOptions {
            out: None,
            ..RunOptions::new(PathBuf::new())
        }
    }

    /// Runs in flight at once (at least 1).
    pub fn with_concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Runs per item (at least 1).
    pub fn with_repeat(mut self, repeat: u32) -> Self {
        self.repeat = repeat;
        self
    }

    /// Only this shard's items.
    pub fn with_shard(mut self, shard: Option<Shard>) -> Self {
        self.shard = shard;
        self
    }

    /// What the run does with the rows already in the results file.
    pub fn with_mode(mut self, mode: RunMode) -> Self {
        self.mode = mode;
        self
    }

    /// A transcript per item and repeat in this folder.
    pub fn with_transcripts(mut self, transcripts: Option<PathBuf>) -> Self {
        self.transcripts = transcripts;
        self
    }

    /// The prices the cost budgets are checked at.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = pricing;
        self
    }

    /// Stop starting runs once the finished ones have spent this much (USD).
    pub fn with_max_total_usd(mut self, max_total_usd: Option<f64>) -> Self {
        self.max_total_usd = max_total_usd;
        self
    }

    /// Stop starting runs after the first that does not pass.
    pub fn with_fail_fast(mut self, fail_fast: bool) -> Self {
        self.fail_fast = fail_fast;
        self
    }

    /// Through the provider's batch API ([`crate::batch`]).
    pub fn with_batch(mut self, batch: Option<BatchSettings>) -> Self {
        self.batch = batch;
        self
    }
}

const BATCH_NEEDS_A_FILE: &str = "a batch run needs a results file: its journal is kept beside it";

/// What a run does with an existing results file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    /// Start over: the results file is created, or emptied if it exists,
    /// and every (item, repeat) runs.
    #[default]
    Fresh,
    /// Keep every finished row of the results file (PASS, FAIL and ERROR)
    /// and run only the (item, repeat) pairs it has no row for. A torn last
    /// line is discarded; rows of another config hash or arena are refused.
    Resume,
    /// Like [`Resume`](RunMode::Resume), and also run the ERROR rows again.
    /// A retried row replaces the old one once its retry finishes (the file
    /// then holds one row per (item, repeat)); PASS and FAIL rows are kept.
    RetryErrors,
    /// Like [`Fresh`](RunMode::Fresh), whatever the results file holds:
    /// `Fresh` refuses to empty a file holding another run's rows (another
    /// arena or config hash, [`JudgeError::WouldReplace`]); `Replace` does.
    Replace,
}

impl RunMode {
    /// Whether the rows already in the results file are kept.
    fn keeps_rows(self) -> bool {
        matches!(self, RunMode::Resume | RunMode::RetryErrors)
    }
}

/// The first of `rows` written by another run: another arena or config hash.
fn other_run<'a>(rows: &'a [ResultRow], arena: &str, hash: &str) -> Option<&'a ResultRow> {
    rows.iter()
        .find(|r| r.arena != arena || r.config_hash != hash)
}

/// [`JudgeError::WouldReplace`] when the results file at `path` holds a
/// row of another arena or config hash: a fresh run never empties another
/// run's results without being asked to. A file that is not results at all
/// is refused the same way (its read error).
fn refuse_other_runs(path: &Path, arena: &str, hash: &str) -> Result<(), JudgeError> {
    let read = read_rows(path)?;
    match other_run(&read.rows, arena, hash) {
        Some(other) => Err(JudgeError::WouldReplace {
            path: path.to_path_buf(),
            arena: other.arena.clone(),
            config_hash: other.config_hash.clone(),
        }),
        None => Ok(()),
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The final rows of this run's items (latest per key), in report order.
    pub rows: Vec<ResultRow>,
    /// The config hash.
    pub config_hash: String,
    /// Runs executed now (fewer than asked when `max_total_usd` stopped
    /// the run).
    pub executed: usize,
    /// Runs skipped because the results file already held them.
    pub skipped: usize,
    /// Whether a torn last line was discarded from the results file.
    pub torn_discarded: bool,
    /// Set when `max_total_usd` stopped the run before every item ran.
    pub stopped_for_cost: Option<CostStop>,
    /// With `fail_fast`, the item runs not started because one did not
    /// pass (`None`: every run started).
    pub stopped_at_failure: Option<usize>,
}

/// How `max_total_usd` stopped a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostStop {
    /// What the finished runs spent, in USD.
    pub spent_usd: f64,
    /// The limit.
    pub max_usd: f64,
    /// Item runs never started.
    pub not_started: usize,
}

/// The price the cost budgets of a run on `backends` use: the model's
/// price, free for the mock and for an unpriced model on a custom endpoint;
/// an error naming the model when a budget is set and the model is unpriced.
fn budget_price(
    arena: &Arena,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Result<Option<ModelPrice>, JudgeError> {
    if arena.max_cost_usd.is_none() && options.max_total_usd.is_none() {
        return Ok(None);
    }
    let billed = !backends.is_mock() && !backends.is_custom_endpoint();
    if let Some(price) = options.pricing.charged(backends.model(), billed) {
        return Ok(Some(price));
    }
    Err(JudgeError::Usage(format!(
        "a cost budget is set but model {:?} is in no pricing table; price it in a pricing file or in [pricing] of arena.toml",
        backends.model()
    )))
}

pub use crate::pricing::BATCH_PRICE;

/// Refuses a batch run that cannot work: its batch API is not the backend
/// the run is named by, or it has a spending limit over the run (which
/// stops starting runs, while a batch run starts them all at once).
fn check_batch(
    batch: &BatchSettings,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Result<(), JudgeError> {
    let info = batch.service.info();
    if info.name != backends.name()
        || info.model != backends.model()
        || info.plan != backends.output_plan()
    {
        return Err(JudgeError::Usage(format!(
            "the batch API ({} / {}) is not the run's backend ({} / {})",
            info.name,
            info.model,
            backends.name(),
            backends.model()
        )));
    }
    if options.max_total_usd.is_some() {
        return Err(JudgeError::Usage(
            "a batch run starts every item at once, so a spending limit over the run (max_total_usd) cannot stop any: drop it (max_cost_usd per run in arena.toml still holds)".to_string(),
        ));
    }
    Ok(())
}

/// Runs `arena` against `backends`, writing rows to `options.out`.
///
/// Each run is a task of its own on the caller's tokio runtime (so the
/// runs of a multi-threaded runtime share its threads); the arena is
/// shared with them, hence the `Arc`.
///
/// Fails only on infrastructure problems (results file, config mismatch on
/// resume); every model or backend failure is an ERROR row.
pub async fn run_arena(
    arena: Arc<Arena>,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunResult, JudgeError> {
    if options.repeat == 0 {
        return Err(JudgeError::Usage("repeat must be at least 1".to_string()));
    }
    if let Some(batch) = &options.batch {
        check_batch(batch, backends.as_ref(), options)?;
    }
    let hash = config_hash_of_mode(
        &arena,
        backends.name(),
        backends.model(),
        &backends.output_plan(),
        options.batch.is_some(),
    );
    let price = budget_price(&arena, backends.as_ref(), options)?.map(|p| {
        if options.batch.is_some() {
            p.scaled(BATCH_PRICE)
        } else {
            p
        }
    });
    let hash = match (arena.max_cost_usd, &price) {
        (Some(_), Some(price)) => crate::hash::with_cost_price(&hash, price),
        _ => hash,
    };
    let mut budget = arena.budget;
    if options.batch.is_some() {
        // A batch may take its whole 24-hour window; tools keep their own
        // timeouts.
        budget.deadline = None;
    }
    if let (Some(max_usd), Some(price)) = (arena.max_cost_usd, price) {
        budget.max_cost = Some(CostLimit { max_usd, price });
    }
    let continuing = options.mode.keeps_rows();
    let out = match (&options.out, continuing, &options.batch) {
        (Some(out), ..) => Some(out.as_path()),
        (None, true, _) => {
            return Err(JudgeError::Usage(
                "a run that keeps earlier rows needs a results file to read them from".into(),
            ));
        }
        (None, _, Some(_)) => return Err(JudgeError::Usage(BATCH_NEEDS_A_FILE.into())),
        (None, false, None) => None,
    };
    let (existing, good_len, torn) = if let Some(out) = out.filter(|o| continuing && o.exists()) {
        let read = read_rows(out)?;
        if let Some(row) = other_run(&read.rows, &arena.name, &hash) {
            return Err(if row.config_hash != hash {
                JudgeError::ConfigMismatch {
                    path: out.to_path_buf(),
                    expected: hash,
                    found: row.config_hash.clone(),
                }
            } else {
                JudgeError::ArenaMismatch {
                    path: out.to_path_buf(),
                    expected: arena.name.clone(),
                    found: row.arena.clone(),
                }
            });
        }
        (read.rows, read.good_len, read.torn)
    } else {
        if let Some(out) = out.filter(|o| options.mode == RunMode::Fresh && o.exists()) {
            refuse_other_runs(out, &arena.name, &hash)?;
        }
        (Vec::new(), 0, false)
    };
    let done: HashMap<(&str, u32), Outcome> = existing
        .iter()
        .map(|r| ((r.id.as_str(), r.repeat), r.outcome))
        .collect();

    let items: Vec<(usize, &Item)> = arena
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| options.shard.is_none_or(|s| s.contains(&i.id)))
        .collect();
    let mut jobs = Vec::new();
    let mut skipped = 0;
    for repeat in 0..options.repeat {
        for (index, item) in &items {
            match done.get(&(item.id.as_str(), repeat)) {
                Some(Outcome::Error) if options.mode == RunMode::RetryErrors => {
                    jobs.push((*index, repeat));
                }
                Some(_) => skipped += 1,
                None => jobs.push((*index, repeat)),
            }
        }
    }

    let writer = match out {
        Some(out) if continuing => Some(ResultsWriter::append(out, good_len)?),
        Some(out) => Some(ResultsWriter::create(out)?),
        None => None,
    };
    progress.start(&arena.name, jobs.len(), skipped, backends.is_mock());
    let executed = jobs.len();
    let rounds = match &options.batch {
        Some(batch) => {
            let Some(out) = out else {
                return Err(JudgeError::Usage(BATCH_NEEDS_A_FILE.into()));
            };
            let path = journal_path(out);
            // `--retry-errors` asks the model again: no earlier answer is
            // replayed to the runs it retries.
            let journal = if options.mode == RunMode::Resume {
                Journal::resume(&path)?
            } else {
                Journal::create(&path)?
            };
            Some(Arc::new(Rounds::new(
                batch.service.clone(),
                batch.poll,
                journal,
                executed,
            )))
        }
        None => None,
    };
    let keep_run = options.transcripts.is_some();
    let transcripts = options.transcripts.as_deref();
    // Spent by finished runs (at the budget price) and runs started, for
    // `max_total_usd`: checked before each new run starts.
    let context = Arc::new(JobContext {
        arena: arena.clone(),
        backends: backends.clone(),
        hash: Arc::from(hash.as_str()),
        budget,
        keep_run,
        price,
        spent: std::sync::Mutex::new(0.0),
        started: std::sync::atomic::AtomicUsize::new(0),
        failed: std::sync::atomic::AtomicBool::new(false),
        rounds: rounds.clone(),
        shard: options.shard,
    });
    let context_ref = &context;
    let under_total = move || match (options.max_total_usd, price) {
        (Some(max), Some(_)) => context_ref.spent.lock().map_or(true, |s| *s < max),
        _ => true,
    };
    let none_failed = move || {
        !(options.fail_fast
            && context_ref
                .failed
                .load(std::sync::atomic::Ordering::Relaxed))
    };
    let mut stream = futures::stream::iter(jobs)
        .take_while(move |_| std::future::ready(under_total() && none_failed()))
        .map(|(index, repeat)| {
            // Cancelled when dropped: when the caller drops this future (a
            // timeout, a shutdown) or the runner stops early on an error,
            // no run goes on calling the model unseen.
            AbortOnDrop::spawn(run_job(context.clone(), index, repeat))
                // A run that panicked is a bug of ours: it goes on unwinding
                // here, as it would have without the task.
                .map(|joined| match joined {
                    Ok(done) => done,
                    Err(e) => std::panic::resume_unwind(e.into_panic()),
                })
        })
        // In batch mode every run is in flight at once: a round waits for
        // every run still going.
        .buffer_unordered(if rounds.is_some() {
            executed.max(1)
        } else {
            options.concurrency.max(1)
        });
    // Rows are written as runs finish: every run that is ready when one
    // finishes is written with it, in one write, before the runner waits
    // again — so a killed process loses no row of a run it saw finish.
    let mut fresh = Vec::with_capacity(executed);
    let mut driving = std::pin::pin!(
        async {
            match &rounds {
                Some(rounds) => rounds.drive(progress).await,
                None => Ok(()),
            }
        }
        .fuse()
    );
    loop {
        let first = futures::select_biased! {
            first = stream.next() => match first {
                Some(first) => first,
                None => break,
            },
            // The rounds end once every run has; an error (the journal
            // cannot be written) stops the runner.
            driven = driving => {
                driven?;
                continue;
            }
            // Every run's row was taken (a finished stream reports itself
            // terminated before it would answer `None`).
            complete => break,
        };
        let mut ready = vec![first];
        while let Some(Some(more)) = stream.next().now_or_never() {
            ready.push(more);
        }
        let (mut batch, runs): (Vec<ResultRow>, Vec<_>) = ready.into_iter().unzip();
        if let Some(writer) = &writer {
            writer.write_all(&batch)?;
        }
        if let Some(dir) = transcripts {
            for (row, run) in batch.iter().zip(runs) {
                if let Some((report, conversation)) = run {
                    Transcript::new(row, report, conversation).write(dir)?;
                }
            }
        }
        progress.finished_all(&batch);
        fresh.append(&mut batch);
    }
    drop(stream);
    progress.done();
    let started = context.started.load(std::sync::atomic::Ordering::Relaxed);
    let failed = context.failed.load(std::sync::atomic::Ordering::Relaxed);
    let stopped_at_failure =
        (options.fail_fast && failed && started < executed).then_some(executed - started);
    let stopped_for_cost = options
        .max_total_usd
        .filter(|_| started < executed && stopped_at_failure.is_none())
        .map(|max_usd| CostStop {
            spent_usd: context.spent.lock().map_or(0.0, |s| *s),
            max_usd,
            not_started: executed - started,
        });

    let wanted: std::collections::HashSet<(&str, u32)> = (0..options.repeat)
        .flat_map(|r| items.iter().map(move |(_, i)| (i.id.as_str(), r)))
        .collect();
    let replaced = fresh
        .iter()
        .any(|r| done.contains_key(&(r.id.as_str(), r.repeat)));
    let all = latest(existing.into_iter().chain(fresh));
    if let Some(out) = out.filter(|_| replaced) {
        // Retried ERROR rows were appended; keep one row per key on disk.
        rewrite(out, &all)?;
    }
    let rows = all
        .into_iter()
        .filter(|r| wanted.contains(&(r.id.as_str(), r.repeat)))
        .collect();
    Ok(RunResult {
        rows,
        config_hash: hash,
        executed: started,
        skipped,
        torn_discarded: torn,
        stopped_for_cost,
        stopped_at_failure,
    })
}

/// What every run of one [`run_arena`] shares.
struct JobContext {
    arena: Arc<Arena>,
    /// Batch mode's coordinator: each run's backend asks it.
    rounds: Option<Arc<Rounds>>,
    backends: Arc<dyn BackendFactory>,
    hash: Arc<str>,
    budget: Budget,
    keep_run: bool,
    /// The price the cost budgets are checked at, when one is set.
    price: Option<ModelPrice>,
    /// Spent by finished runs, at `price`.
    spent: std::sync::Mutex<f64>,
    /// Runs started.
    started: std::sync::atomic::AtomicUsize,
    /// Whether a finished run did not pass (for `fail_fast`).
    failed: std::sync::atomic::AtomicBool,
    /// The shard this run is of (`--shard`), written on every row.
    shard: Option<Shard>,
}

/// One run of [`run_arena`]: item `index`, repeat `repeat`, scored, judged
/// and its cost counted.
async fn run_job(
    context: Arc<JobContext>,
    index: usize,
    repeat: u32,
) -> (ResultRow, Option<(RunReport, Conversation)>) {
    let JobContext {
        arena, backends, ..
    } = context.as_ref();
    context
        .started
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let item = &arena.items[index];
    let backend: Arc<dyn tribunal_runtime::Backend> = match &context.rounds {
        Some(rounds) => Arc::new(BatchTurns::new(rounds.clone(), item.index, repeat)),
        None => backends.backend_for(item),
    };
    let span = item_span(&arena.name, &item.id, repeat);
    let ((mut row, run), cache) = tracing::Instrument::instrument(
        tribunal_runtime::backend::counted(run_recorded(
            arena,
            item,
            repeat,
            backend,
            &context.hash,
            context.budget,
            context.keep_run,
        )),
        span.clone(),
    )
    .await;
    row.cache = (cache.hits + cache.misses > 0).then_some(cache);
    if item.has_rubric() {
        // Boxed: a judgement's future is larger than the run's, and every
        // run in flight would otherwise carry room for it.
        let judged = Box::pin(judge_row(arena, item, &mut row, backends.as_ref()));
        tracing::Instrument::instrument(judged, span.clone()).await;
    }
    span.record("tribunal.outcome", row.outcome.as_str());
    if let Some(code) = row.error_code {
        span.record("error.type", code.as_str());
    }
    if let (Some(price), Ok(mut s)) = (context.price, context.spent.lock()) {
        *s += price.cost(&row.usage);
    }
    row.replayed = backends.is_replay();
    row.batch = context.rounds.is_some();
    row.custom_endpoint = backends.is_custom_endpoint();
    row.shard = context.shard;
    if row.outcome != Outcome::Pass {
        context
            .failed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    (row, run)
}

/// The `arena_item` span of one run of an item (the agent's
/// `invoke_agent` span and a rubric judge's runs are its children): the
/// arena, the item's id, the repeat, and at the end the outcome (`PASS`,
/// `FAIL`, `ERROR`) with the error code as `error.type`. See
/// `tribunal_runtime::telemetry` for the rest of a run's spans.
fn item_span(arena: &str, id: &str, repeat: u32) -> tracing::Span {
    tracing::info_span!(
        "arena_item",
        otel.name = "arena_item",
        otel.kind = "internal",
        tribunal.arena = arena,
        tribunal.item.id = id,
        tribunal.repeat = repeat,
        tribunal.outcome = tracing::field::Empty,
        error.type = tracing::field::Empty,
    )
}

/// Runs one item once and scores it.
pub async fn run_item(
    arena: &Arena,
    item: &Item,
    repeat: u32,
    backend: Arc<dyn tribunal_runtime::Backend>,
    config_hash: &str,
) -> ResultRow {
    run_recorded(
        arena,
        item,
        repeat,
        backend,
        config_hash,
        arena.budget,
        false,
    )
    .await
    .0
}

/// [`run_item`], also returning the runtime's report and conversation for
/// a transcript when `keep_run` (`None` otherwise, or when the agent could
/// not start).
async fn run_recorded(
    arena: &Arena,
    item: &Item,
    repeat: u32,
    backend: Arc<dyn tribunal_runtime::Backend>,
    config_hash: &str,
    budget: Budget,
    keep_run: bool,
) -> (ResultRow, Option<(RunReport, Conversation)>) {
    let backend_name = backend.name().to_string();
    let model = backend.model().to_string();
    let contract: Arc<dyn tribunal_runtime::AnswerContract> = match &arena.verdict {
        Some(verdict) => verdict.schemas.clone(),
        None => item.schema.clone(),
    };
    let tools = arena
        .verdict
        .as_ref()
        .and_then(|v| v.toolbox_for(&arena.dir, &item.id))
        .unwrap_or_else(|| arena.toolbox.clone());
    let (report, conversation) = match Agent::new(backend, contract) {
        Ok(agent) => {
            let mut agent = agent
                .with_tools(tools)
                .with_budget(budget)
                .with_answer_policy(arena.answer)
                .with_tool_required_first(arena.require_tool_first);
            if let Some(max) = arena.backend.max_output_tokens {
                agent = agent.with_max_output_tokens(max);
            }
            if let Some(system) = &arena.system {
                agent = agent.with_system(system.clone());
            }
            let run = agent.run(&item.input).await;
            (run.report, Some(run.conversation))
        }
        Err(e) => {
            tracing::warn!(item = %item.id, "the schema cannot be used with this backend: {e}");
            (RunReport::failed(ErrorCode::SchemaMismatch), None)
        }
    };
    let checks = match &report.outcome {
        RunOutcome::Ok { value } => score(&item.checks, Some(value), &report),
        RunOutcome::Error { .. } => Vec::new(),
    };
    // The report is kept (cloned) only for a transcript; the row takes its
    // parts otherwise.
    let run = match (keep_run, conversation) {
        (true, Some(conversation)) => Some((report.clone(), conversation)),
        _ => None,
    };
    let (outcome, error_code, answer) = match report.outcome {
        RunOutcome::Ok { mut value } => {
            // The row keeps the answer until the report: without the
            // parser's spare capacity.
            tribunal_runtime::json::shrink_to_fit(&mut value);
            let outcome = if checks.iter().all(|c| c.ok) {
                Outcome::Pass
            } else {
                Outcome::Fail
            };
            (outcome, None, Some(value))
        }
        RunOutcome::Error { code } => (Outcome::Error, Some(code), None),
    };
    let row = ResultRow {
        version: ROW_VERSION,
        arena: arena.name.clone(),
        id: item.id.clone(),
        index: item.index,
        repeat,
        config_hash: config_hash.to_string(),
        outcome,
        error_code,
        backend_failure: report.backend_failure,
        checks,
        answer,
        usage: report.usage,
        tool_calls: {
            let mut calls = report.tool_calls;
            calls.shrink_to_fit();
            calls
        },
        wall_ms: report.wall_ms,
        turns: report.turns,
        repair_used: report.repair_used,
        finalized_after: report.finalized_after,
        backend: backend_name,
        model,
        finished_at_ms: now_ms(),
        replayed: false,
        custom_endpoint: false,
        batch: false,
        cache: None,
        judge: None,
        shard: None,
    };
    (row, run)
}

/// Grades the answer of `row` on each of `item`'s `rubric` checks with
/// the judge `backends` supplies, replacing those checks' results and the
/// outcome. A judgement that fails makes the row ERROR with the judge's
/// code (and, as every ERROR row, no answer and no checks). Rows that
/// already are ERROR, and items without rubric checks, are left alone.
async fn judge_row(arena: &Arena, item: &Item, row: &mut ResultRow, backends: &dyn BackendFactory) {
    let rubrics: Vec<usize> = item
        .checks
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.check, Check::Rubric { .. }))
        .map(|(i, _)| i)
        .collect();
    if rubrics.is_empty() || row.outcome == Outcome::Error {
        return;
    }
    let Some(answer) = row.answer.clone() else {
        return;
    };
    let (backend, model) = backends
        .judge_name()
        .unwrap_or_else(|| ("none".to_string(), "none".to_string()));
    let mut record = JudgeRecord {
        backend,
        model,
        usage: Default::default(),
        verdicts: Vec::new(),
        wall_ms: 0.0,
        failed: false,
        custom_endpoint: backends.judge_on_custom_endpoint(),
    };
    for i in rubrics {
        let (check, Some(result)) = (&item.checks[i], row.checks.get_mut(i)) else {
            continue;
        };
        let Check::Rubric { rubric, .. } = &check.check else {
            continue;
        };
        let Some(judge) = backends.judge_for(item, check) else {
            fail(row, record, ErrorCode::BackendError);
            return;
        };
        let run = rubric::judge(judge, &arena.judge, rubric, &item.input, &answer).await;
        let judgement = run.judgement;
        record.usage.add(run.usage);
        record.wall_ms += run.wall_ms;
        if let Judgement::Failed(code) = judgement {
            fail(row, record, code);
            return;
        }
        if let Judgement::Judged { verdict, .. } = &judgement {
            record.verdicts.push(*verdict);
        }
        *result = check.judged(&judgement);
    }
    row.outcome = if row.checks.iter().all(|c| c.ok) {
        Outcome::Pass
    } else {
        Outcome::Fail
    };
    row.judge = Some(record);
}

/// Makes `row` the ERROR of a judge that failed with `code`: only the code
/// stays (no answer, no checks), and `judge.failed` says whose it was.
fn fail(row: &mut ResultRow, mut record: JudgeRecord, code: ErrorCode) {
    record.failed = true;
    row.outcome = Outcome::Error;
    row.error_code = Some(code);
    row.backend_failure = None;
    row.checks.clear();
    row.answer = None;
    row.judge = Some(record);
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run in flight is one task holding this future, so its size is
    /// memory per run (10,000 in flight: 10,000 of them). An `async fn`
    /// that takes a future or the machine by value holds it twice; this
    /// bound fails when that comes back (history: BENCHMARKS.md).
    #[test]
    fn a_run_in_flight_holds_a_small_future() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/structured_output");
        let arena = match Arena::load(&dir) {
            Ok(arena) => Arc::new(arena),
            Err(e) => panic!("the arena loads: {e}"),
        };
        let context = Arc::new(JobContext {
            arena: arena.clone(),
            backends: Arc::new(crate::backends::MockBackends::default()),
            hash: Arc::from("hash"),
            budget: arena.budget,
            keep_run: false,
            price: None,
            spent: Default::default(),
            started: Default::default(),
            failed: Default::default(),
            rounds: None,
            shard: None,
        });
        let job = run_job(context, 0, 0);
        let size = std::mem::size_of_val(&job);
        assert!(size <= 2_500, "a run's future is {size} bytes");
    }
}
