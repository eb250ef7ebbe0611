//! Running an arena: every (item, repeat) against a backend, with bounded
//! concurrency, result rows kept as runs finish (those ready together in
//! one write, before the runner waits again), resume, retry of ERROR rows,
//! shards, and the cost budgets (per run and over the run).
//!
//! The parts, in the order a run meets them: [`RunOptions`] (options.rs),
//! the terms every run is held to (terms.rs: config hash, price, budget),
//! the rows already in the results file (prior.rs), one run of an item
//! (job.rs, with the rubric judge in judging.rs), and where the rows go
//! ([`RowSink`], sink.rs). [`RunPlan`] (plan.rs) says what a run is on and
//! [`RunPlan::prepare`] assembles it into a [`PreparedRun`] (prepared.rs):
//! the arena as the run changes it, backends, batch API, `[[mcp]]` tools,
//! with the process variables read once ([`Environment`]).

pub mod backends;
pub mod batch;
mod environment;
pub mod hash;
mod job;
mod mock_cause;
mod options;
mod plan;
mod prepared;
mod prior;
pub(crate) mod progress;
pub mod shard_env;
mod sink;
mod talk;
mod terms;
mod user_route;
mod workdir;

pub use environment::Environment;
pub use options::{RunApproval, RunMode, RunOptions};
pub use plan::{JudgeRoute, PlanError, RunPlan, connect_model};
pub use prepared::{PreparedRun, ReadyRun};
pub use sink::{JsonlSink, MemorySink, RowSink};

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::error::JudgeError;
use crate::rows::results::{ResultRow, latest};
use crate::rows::transcript::Transcript;
use crate::run::backends::BackendFactory;
use crate::run::batch::{Journal, Rounds, journal_path};
use crate::run::progress::Progress;
use crate::score::Outcome;
use futures::{FutureExt, StreamExt};
use job::{Finished, JobContext, run_job};
use prior::{BATCH_NEEDS_A_FILE, Prior, read_prior, results_file};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tribunal_runtime::internal::task::AbortOnDrop;

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

/// Runs `arena` against `backends`, keeping the rows in `options.out`
/// (a JSON Lines file; in memory without one).
///
/// Each run is a task of its own on the caller's tokio runtime (so the
/// runs of a multi-threaded runtime share its threads); the arena is
/// shared with them, hence the `Arc`.
///
/// Fails only on infrastructure problems (results file, config mismatch on
/// resume); every model or backend failure is an ERROR row.
pub(crate) async fn run_arena(
    arena: Arc<Arena>,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunResult, JudgeError> {
    let (ground, out) = Ground::of(&arena, backends.as_ref(), options)?;
    let mut sink: Box<dyn RowSink> = match out {
        Some(out) if options.mode.keeps_rows() => {
            Box::new(JsonlSink::append_to(out, ground.prior.good_len)?)
        }
        Some(out) => Box::new(JsonlSink::create(out)?),
        // The rows come back in the result: nothing else keeps them.
        None => Box::new(sink::Nowhere),
    };
    run_on(arena, backends, options, progress, sink.as_mut(), ground).await
}

/// [`run_arena`] with the rows going to `sink` as runs finish (an
/// embedder's own store, a [`MemorySink`]: [`ReadyRun::run_into`]). `options.out` is still where
/// rows kept from earlier runs are read ([`RunMode::Resume`]) and where a
/// batch run keeps its journal; the sink should hold those same rows.
pub(crate) async fn run_arena_into(
    arena: Arc<Arena>,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
    progress: &dyn Progress,
    sink: &mut dyn RowSink,
) -> Result<RunResult, JudgeError> {
    let (ground, _) = Ground::of(&arena, backends.as_ref(), options)?;
    run_on(arena, backends, options, progress, sink, ground).await
}

/// What a run starts from: its terms and the rows it keeps.
struct Ground {
    terms: terms::Terms,
    prior: Prior,
}

impl Ground {
    /// The terms of running `arena` on `backends` with `options`, and the
    /// rows its results file holds for it; with the results file.
    fn of<'o>(
        arena: &Arena,
        backends: &dyn BackendFactory,
        options: &'o RunOptions,
    ) -> Result<(Ground, Option<&'o Path>), JudgeError> {
        let terms = terms::terms(arena, backends, options)?;
        let out = results_file(options)?;
        let prior = read_prior(out, options.mode, &arena.name, &terms.hash)?;
        Ok((Ground { terms, prior }, out))
    }
}

/// The sandbox of the arena's engine: bubblewrap, tried once (refused
/// when none can be made), a container engine with its image (refused
/// when its client or daemon is missing), or, only when the arena names
/// it, none at all; showing the toolchains the arena names (refused when
/// one is missing).
pub(crate) async fn command_sandbox(
    settings: &crate::arena::SandboxSettings,
) -> Result<tribunal_tools::shell::CommandSandbox, tribunal_tools::SandboxError> {
    use tribunal_tools::shell::{CommandSandbox, Engine};
    let engine = settings.engine;
    if let (true, Some(image)) = (engine.is_container(), &settings.image) {
        return CommandSandbox::container(engine, image).await;
    }
    let sandbox = if engine == Engine::NoneTrustedContainer {
        tracing::warn!(
            "NO SANDBOX: [sandbox] engine = \"none-trusted-container\": the model's commands run \
             as this process's user, with this machine's files and network"
        );
        CommandSandbox::trusted_container()?
    } else {
        CommandSandbox::detect().await?
    };
    sandbox.with_toolchains(&settings.toolchains)
}

async fn run_on(
    arena: Arc<Arena>,
    backends: Arc<dyn BackendFactory>,
    options: &RunOptions,
    progress: &dyn Progress,
    sink: &mut dyn RowSink,
    Ground { terms, prior }: Ground,
) -> Result<RunResult, JudgeError> {
    let done: HashMap<(&str, u32), Outcome> = prior
        .rows
        .iter()
        .map(|r| ((r.id.as_str(), r.repeat), r.outcome))
        .collect();
    let items = shard_items(&arena, options);
    let (jobs, skipped) = plan_jobs(&items, options, &done);
    let executed = jobs.len();
    // Before the first run: no sandbox, no run (never one without it,
    // unless the arena names the engine that is none).
    let sandbox = match (&arena.sandbox, executed) {
        (Some(settings), 1..) => Some(Arc::new(
            // Boxed: the engines' probes stay out of every run's future.
            Box::pin(command_sandbox(settings))
                .await
                .map_err(JudgeError::Sandbox)?,
        )),
        _ => None,
    };
    if let Some(sandbox) = &sandbox {
        tracing::info!(engine = %sandbox.describe(), "commands run in a sandbox");
    }
    progress.start(&arena.name, jobs.len(), skipped, backends.is_mock());
    let rounds = batch_rounds(options, executed)?;
    let context = Arc::new(JobContext {
        arena: arena.clone(),
        backends: backends.clone(),
        hash: Arc::from(terms.hash.as_str()),
        budget: terms.budget,
        keep_run: options.transcripts.is_some(),
        price: terms.price,
        spent: std::sync::Mutex::new(0.0),
        pricing: terms.price.map(|_| Arc::new(options.pricing.clone())),
        started: Default::default(),
        failed: Default::default(),
        rounds,
        shard: options.shard,
        approval: options.approval.clone(),
        sandbox,
        checks_digests: hash::checks_digests(&arena),
    });
    let fresh = drive(&context, jobs, options, progress, sink).await?;
    progress.done();
    let started = context.started.load(Ordering::Relaxed);
    let failed = context.failed.load(Ordering::Relaxed);
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
    let wanted: HashSet<(&str, u32)> = (0..options.repeat)
        .flat_map(|r| items.iter().map(move |(_, i)| (i.id.as_str(), r)))
        .collect();
    let replaced = fresh
        .iter()
        .any(|r| done.contains_key(&(r.id.as_str(), r.repeat)));
    let all = latest(prior.rows.into_iter().chain(fresh));
    if replaced {
        // Retried ERROR rows were appended; keep one row per key.
        sink.replace_all(&all)?;
    }
    let rows = all
        .into_iter()
        .filter(|r| wanted.contains(&(r.id.as_str(), r.repeat)))
        .collect();
    Ok(RunResult {
        rows,
        config_hash: terms.hash,
        executed: started,
        skipped,
        torn_discarded: prior.torn,
        stopped_for_cost,
        stopped_at_failure,
    })
}

/// The items of the run's shard (every item without one), with their
/// positions.
fn shard_items<'a>(arena: &'a Arena, options: &RunOptions) -> Vec<(usize, &'a Item)> {
    arena
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| options.shard.is_none_or(|s| s.contains(&i.id)))
        .collect()
}

/// The (item position, repeat) pairs to run, and how many are skipped
/// because `done` holds them (an ERROR row is run again under
/// [`RunMode::RetryErrors`]).
fn plan_jobs(
    items: &[(usize, &Item)],
    options: &RunOptions,
    done: &HashMap<(&str, u32), Outcome>,
) -> (Vec<(usize, u32)>, usize) {
    let mut jobs = Vec::new();
    let mut skipped = 0;
    for repeat in 0..options.repeat {
        for (index, item) in items {
            match done.get(&(item.id.as_str(), repeat)) {
                Some(Outcome::Error) if options.mode == RunMode::RetryErrors => {
                    jobs.push((*index, repeat));
                }
                Some(_) => skipped += 1,
                None => jobs.push((*index, repeat)),
            }
        }
    }
    (jobs, skipped)
}

/// Batch mode's coordinator for `executed` runs, its journal beside the
/// results file (resumed by [`RunMode::Resume`]: batches in flight are
/// polled, not paid twice); `None` online.
fn batch_rounds(options: &RunOptions, executed: usize) -> Result<Option<Arc<Rounds>>, JudgeError> {
    let Some(batch) = &options.batch else {
        return Ok(None);
    };
    let Some(out) = options.out.as_deref() else {
        return Err(JudgeError::Usage(BATCH_NEEDS_A_FILE.into()));
    };
    let path = journal_path(out);
    // `RetryErrors` asks the model again: no earlier answer is replayed to
    // the runs it retries.
    let journal = match options.mode {
        RunMode::Resume => Journal::resume(&path)?,
        _ => Journal::create(&path)?,
    };
    Ok(Some(Arc::new(Rounds::new(
        batch.service.clone(),
        batch.poll,
        journal,
        executed,
    ))))
}

/// Runs `jobs` (at most `options.concurrency` at once; all at once in
/// batch mode), handing the rows of the runs that finish together to
/// `sink` in one write and writing their transcripts; stops starting runs
/// when the spending limit or `fail_fast` says so. The new rows, in the
/// order they finished.
async fn drive(
    context: &Arc<JobContext>,
    jobs: Vec<(usize, u32)>,
    options: &RunOptions,
    progress: &dyn Progress,
    sink: &mut dyn RowSink,
) -> Result<Vec<ResultRow>, JudgeError> {
    let executed = jobs.len();
    let go_on = move || {
        let under_total = match (options.max_total_usd, context.price) {
            (Some(max), Some(_)) => context.spent.lock().map_or(true, |s| *s < max),
            _ => true,
        };
        under_total && !(options.fail_fast && context.failed.load(Ordering::Relaxed))
    };
    let in_flight = match context.rounds {
        Some(_) => executed.max(1),
        // A cassette answers a request recorded several times in recording
        // order, and items may send the same request (twins with one input,
        // repeats): one run at a time, in dataset order, gives each run the
        // answer recorded for it (the first requests of a recording went out
        // in dataset order). Replays call no model, so this costs little.
        None if context.backends.is_replay() => 1,
        None => options.concurrency.max(1),
    };
    let mut stream = futures::stream::iter(jobs)
        .take_while(move |_| std::future::ready(go_on()))
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
        .buffer_unordered(in_flight);
    let mut driving = std::pin::pin!(
        async {
            match &context.rounds {
                Some(rounds) => rounds.drive(progress).await,
                None => Ok(()),
            }
        }
        .fuse()
    );
    let mut fresh = Vec::with_capacity(executed);
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
        keep(
            ready,
            options.transcripts.as_deref(),
            progress,
            sink,
            &mut fresh,
        )?;
    }
    Ok(fresh)
}

/// The runs that finished together: their rows to `sink` in one write,
/// their transcripts to `transcripts`, then to `progress` and `fresh`.
fn keep(
    ready: Vec<Finished>,
    transcripts: Option<&Path>,
    progress: &dyn Progress,
    sink: &mut dyn RowSink,
    fresh: &mut Vec<ResultRow>,
) -> Result<(), JudgeError> {
    let (mut rows, runs): (Vec<ResultRow>, Vec<_>) = ready.into_iter().unzip();
    sink.append(&rows)?;
    if let Some(dir) = transcripts {
        for (row, run) in rows.iter().zip(runs) {
            if let Some((report, conversation)) = run {
                Transcript::new(row, report, conversation).write(dir)?;
            }
        }
    }
    progress.finished_all(&rows);
    fresh.append(&mut rows);
    Ok(())
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
            backends: Arc::new(crate::run::backends::MockBackends::default()),
            hash: Arc::from("hash"),
            budget: arena.budget,
            keep_run: false,
            price: None,
            spent: Default::default(),
            pricing: None,
            started: Default::default(),
            failed: Default::default(),
            rounds: None,
            shard: None,
            approval: None,
            sandbox: None,
            checks_digests: hash::checks_digests(&arena),
        });
        let job = run_job(context, 0, 0);
        let size = std::mem::size_of_val(&job);
        assert!(size <= 2_500, "a run's future is {size} bytes");
    }
}
