//! One run of an item: the agent's run on its backend, handed to `score`
//! (the item's checks, then the rubric judge when it has rubric checks),
//! and made into its row at the end ([`ResultRow::from_run`]).

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::rows::results::{ResultRow, RowOrigin};
use crate::run::backends::BackendFactory;
use crate::run::batch::{BatchTurns, Rounds};
use crate::run::workdir::RunWorld;
use crate::score::{Outcome, RubricJudge, Scored, grade_rubrics, score_run};
use crate::shard::Shard;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tribunal_runtime::cost::ModelPrice;
use tribunal_runtime::{Agent, Backend, Budget, Conversation, ErrorCode, RunReport, ToolBox};

/// A finished run: its row, and the runtime's report and conversation when
/// a transcript is kept.
pub(super) type Finished = (ResultRow, Option<(RunReport, Conversation)>);

/// What every run of one [`run_arena`](super::run_arena) shares.
pub(super) struct JobContext {
    pub(super) arena: Arc<Arena>,
    /// Batch mode's coordinator: each run's backend asks it.
    pub(super) rounds: Option<Arc<Rounds>>,
    pub(super) backends: Arc<dyn BackendFactory>,
    pub(super) hash: Arc<str>,
    pub(super) budget: Budget,
    /// Whether each run's report and conversation are kept (transcripts).
    pub(super) keep_run: bool,
    /// The price the cost budgets are checked at, when one is set.
    pub(super) price: Option<ModelPrice>,
    /// Spent by finished runs, at `price`.
    pub(super) spent: std::sync::Mutex<f64>,
    /// Runs started.
    pub(super) started: AtomicUsize,
    /// Whether a finished run did not pass (for `fail_fast`).
    pub(super) failed: AtomicBool,
    /// The shard this run is of (`--shard`), written on every row.
    pub(super) shard: Option<Shard>,
    /// A live approver over the arena's `[approval]`.
    pub(super) approval: Option<super::options::RunApproval>,
    /// The command sandbox of a `shell` arena, tried before the first run.
    pub(super) sandbox: Option<Arc<tribunal_tools::shell::CommandSandbox>>,
    /// Each item's [`checks_digest`](super::hash::checks_digest), in
    /// `arena.items`' order: made once, written on every row of the item.
    pub(super) checks_digests: Vec<String>,
}

impl JobContext {
    /// The origin of repeat `repeat` of `item` (at `at` in the arena's
    /// items) on `backend`.
    fn origin(&self, (item, at): (&Item, usize), repeat: u32, backend: &dyn Backend) -> RowOrigin {
        let mut origin = RowOrigin::new(
            self.arena.name.as_str(),
            (item.id.as_str(), item.index, repeat),
            self.hash.as_ref(),
            (backend.name(), backend.model()),
        );
        origin.replayed = self.backends.is_replay();
        origin.custom_endpoint = self.backends.is_custom_endpoint();
        origin.batch = self.rounds.is_some();
        origin.shard = self.shard;
        origin.checks_digest = self.checks_digests.get(at).cloned();
        origin
    }
}

/// Item `index`, repeat `repeat`: run, scored, judged, its cost counted.
pub(super) async fn run_job(context: Arc<JobContext>, index: usize, repeat: u32) -> Finished {
    let JobContext {
        arena, backends, ..
    } = context.as_ref();
    context.started.fetch_add(1, Ordering::Relaxed);
    let item = &arena.items[index];
    let backend: Arc<dyn Backend> = match &context.rounds {
        Some(rounds) => Arc::new(BatchTurns::new(rounds.clone(), item.index, repeat)),
        None => backends.backend_for(item),
    };
    let origin = context.origin((item, index), repeat, backend.as_ref());
    let span = item_span(&arena.name, &item.id, repeat);
    let world = match &context.sandbox {
        // Boxed, as the judge's future is: only shell arenas pay for it.
        Some(sandbox) => match Box::pin(RunWorld::make(
            arena.clone(),
            index,
            repeat,
            sandbox.clone(),
        ))
        .await
        {
            Ok(world) => Some(world),
            Err(e) => {
                // The run cannot start without its copy: an ERROR row, the
                // reason in the log (a path and an I/O error, no secret).
                tracing::warn!(item = %item.id, repeat, "no working copy: {e}");
                let mut report = RunReport::failed(ErrorCode::InternalError);
                let scored = score_run(&item.checks, &mut report);
                context.failed.store(true, Ordering::Relaxed);
                return (
                    ResultRow::from_run(origin, report, scored, None, None),
                    None,
                );
            }
        },
        None => None,
    };
    let tools = world.as_ref().map(|w| w.toolbox.clone());
    let ((report, conversation), cache) = tracing::Instrument::instrument(
        tribunal_runtime::backend::counted(run_agent(
            arena,
            item,
            backend,
            (context.budget, tools),
            context.approval.as_ref(),
        )),
        span.clone(),
    )
    .await;
    // The report is kept (cloned) only for a transcript, before scoring
    // takes the answer out of it.
    let run = match (context.keep_run, conversation) {
        (true, Some(conversation)) => Some((report.clone(), conversation)),
        _ => None,
    };
    let mut report = report;
    let (scored, judge) = match score_run(&item.checks, &mut report) {
        Scored::Answered { answer, checks } if item.has_rubric() => {
            // Boxed: a judgement's future is larger than the run's, and
            // every run in flight would otherwise carry room for it.
            let backend_for = |check: &_| backends.judge_for(item, check);
            let judge = RubricJudge {
                name: backends
                    .judge_name()
                    .unwrap_or_else(|| ("none".to_string(), "none".to_string())),
                custom_endpoint: backends.judge_on_custom_endpoint(),
                settings: &arena.judge,
                backend_for: &backend_for,
            };
            let judged = Box::pin(grade_rubrics(
                judge,
                &item.checks,
                &item.input,
                answer,
                checks,
            ));
            let (graded, record) = tracing::Instrument::instrument(judged, span.clone()).await;
            (graded, Some(record))
        }
        scored => (
            super::mock_cause::with_mock_cause(arena, item, scored),
            None,
        ),
    };
    // Scored: the copy goes now, unless the arena keeps copies (a
    // removal on this thread: an await here would hold the row's state).
    drop(world);
    let cache = (cache.hits + cache.misses > 0).then_some(cache);
    let row = ResultRow::from_run(origin, report, scored, judge, cache);
    span.record("tribunal.outcome", row.outcome.as_str());
    if let Some(code) = row.error_code {
        span.record("error.type", code.as_str());
    }
    if let (Some(price), Ok(mut s)) = (context.price, context.spent.lock()) {
        *s += price.cost(&row.usage);
    }
    if row.outcome != Outcome::Pass {
        context.failed.store(true, Ordering::Relaxed);
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

/// The agent's run of `item` on `backend` under `budget`, with the run's
/// own tools when it has a working copy (else the arena's): the report,
/// and the conversation (`None` when the agent could not start).
pub(super) async fn run_agent(
    arena: &Arena,
    item: &Item,
    backend: Arc<dyn Backend>,
    (budget, own_tools): (Budget, Option<Arc<ToolBox>>),
    live_approval: Option<&super::options::RunApproval>,
) -> (RunReport, Option<Conversation>) {
    let contract: Arc<dyn tribunal_runtime::AnswerContract> = match &arena.verdict {
        Some(verdict) => verdict.schemas.clone(),
        None => item.schema.clone(),
    };
    let tools = own_tools
        .or_else(|| {
            arena
                .verdict
                .as_ref()
                .and_then(|v| v.toolbox_for(&arena.dir, &item.id))
        })
        .unwrap_or_else(|| arena.toolbox.clone());
    let agent = if arena.answer.mode == tribunal_runtime::json::ExtractionMode::Text {
        Agent::for_text(backend, contract)
    } else {
        Agent::new(backend, contract)
    };
    match agent {
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
            if let Some(live) = live_approval {
                agent = agent.with_approval(live.policy.clone(), live.approver.clone());
            } else if let Some(approval) = &arena.approval {
                agent = agent.with_approval(approval.policy(), Arc::new(approval.approver()));
            }
            let run = agent.run(&item.input).await;
            (run.report, Some(run.conversation))
        }
        Err(e) => {
            tracing::warn!(item = %item.id, "the schema cannot be used with this backend: {e}");
            (RunReport::failed(ErrorCode::SchemaMismatch), None)
        }
    }
}
