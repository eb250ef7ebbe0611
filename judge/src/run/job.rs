//! One run of an item: the agent's run on its backend, handed to `score`
//! (the item's checks, then the rubric judge when it has rubric checks),
//! and made into its row at the end ([`ResultRow::from_run`]).

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::rows::Sampling;
use crate::rows::results::{ConversationRecord, ResultRow, RowOrigin};
use crate::run::backends::BackendFactory;
use crate::run::batch::{BatchTurns, Rounds};
use crate::run::workdir::RunWorld;
use crate::score::{JudgeRecord, Outcome, RubricJudge, Scored, grade_rubrics, score_run};
use crate::shard::Shard;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tribunal_runtime::internal::cost::ModelPrice;
use tribunal_runtime::{
    Agent, Backend, Budget, Conversation, DialogueReport, ErrorCode, RunReport, ToolBox,
};

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
    /// Spent by finished runs, at `price` (their simulated users' spend
    /// at theirs).
    pub(super) spent: std::sync::Mutex<f64>,
    /// The prices a cost budget counts the simulated users' spend at
    /// (`None`: no cost budget).
    pub(super) pricing: Option<Arc<crate::pricing::Pricing>>,
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
        origin.unsandboxed = self
            .sandbox
            .as_ref()
            .is_some_and(|s| s.engine() == tribunal_tools::shell::Engine::NoneTrustedContainer);
        origin.shard = self.shard;
        origin.sampling =
            (!self.backends.is_mock()).then(|| Sampling::of(&self.arena.backend, &[]));
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
    let copied = context.sandbox.is_some() || arena.copies_world(item);
    let world = match copied {
        // Boxed, as the judge's future is: only runs with a world pay for it.
        true => match Box::pin(RunWorld::make(
            arena.clone(),
            index,
            repeat,
            context.sandbox.clone(),
        ))
        .await
        {
            Ok(world) => Some(world),
            Err(e) => {
                // The run cannot start without its copy: an ERROR row, the
                // reason in the log (a path and an I/O error, or a server's start
                // error; no secret).
                tracing::warn!(item = %item.id, repeat, "the run's world could not be made: {e}");
                let mut report = RunReport::failed(e.code);
                let scored = score_run(&item.checks, &mut report, None);
                context.failed.store(true, Ordering::Relaxed);
                return (
                    ResultRow::from_run(origin, report, scored, None, None),
                    None,
                );
            }
        },
        false => None,
    };
    let tools = world.as_ref().map(|w| w.toolbox.clone());
    let simulator = super::talk::SimulatorRoute::of(item, backends.as_ref(), &backend)
        .map(|route| route.with_budget_pricing(context.pricing.as_deref()));
    let played_by = simulator.as_ref().map(super::talk::SimulatorRoute::record);
    let ((report, conversation, talk), cache) = tracing::Instrument::instrument(
        tribunal_runtime::internal::backend::counted(run_agent(
            (arena, item),
            (backend.clone(), simulator),
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
    // Boxed: scoring's future (a shell arena's command checks, a rubric
    // judgement) is larger than the run's, and every run in flight would
    // otherwise carry room for it.
    let scored = Box::pin(score(
        &context,
        (item, talk.as_ref()),
        world.as_deref(),
        &mut report,
        &span,
    ));
    let (scored, judge) = scored.await;
    // Scored (the world's servers stopped): the copy goes now, unless the
    // arena keeps copies (a removal on this thread: an await here would
    // hold the row's state).
    drop(world);
    let cache = (cache.hits + cache.misses > 0).then_some(cache);
    let mut origin = origin;
    if let Some(sampling) = &mut origin.sampling {
        // Known once the run has asked: what the model refused.
        sampling.set_refused(&backend.refused_sampling());
    }
    let mut row = ResultRow::from_run(origin, report, scored, judge, cache);
    row.conversation = talk.map(|t| {
        let mut record = ConversationRecord::of(t);
        record.simulator = played_by;
        Box::new(record)
    });
    span.record("tribunal.outcome", row.outcome.as_str());
    if let Some(code) = row.error_code {
        span.record("error.type", code.as_str());
    }
    if let (Some(price), Ok(mut s)) = (context.price, context.spent.lock()) {
        // The simulated user's and the rubric judge's spend too, each at its
        // own model's price (a model no table prices counts nothing).
        let usd = |cost: Option<crate::pricing::Cost>| match cost {
            Some(crate::pricing::Cost::Usd(usd)) => usd,
            _ => 0.0,
        };
        let others = context.pricing.as_ref().map_or(0.0, |p| {
            usd(p.user_cost_of(&row)) + usd(p.judge_cost_of(&row))
        });
        *s += price.cost(&row.usage) + others;
    }
    if row.outcome != Outcome::Pass {
        context.failed.store(true, Ordering::Relaxed);
    }
    (row, run)
}

/// What the item's checks make of the run: its command checks run on the
/// copy the agent left (a shell arena's), then its rubric checks judged
/// (a conversation's on its transcript).
async fn score(
    context: &JobContext,
    (item, talk): (&Item, Option<&DialogueReport>),
    world: Option<&RunWorld>,
    report: &mut RunReport,
    span: &tracing::Span,
) -> (Scored, Option<JudgeRecord>) {
    let backends = &context.backends;
    let scored = match world {
        Some(world) => {
            let scored = world.scored(item, report).await;
            // The world is read: its servers stop (and are reaped) before
            // the judge, and before the copy they work in is removed.
            world.close().await;
            scored
        }
        None => score_run(&item.checks, report, None),
    };
    match scored {
        Scored::Answered { answer, checks } if item.has_rubric() => {
            let backend_for = |check: &_| backends.judge_for(item, check);
            let judge = RubricJudge {
                name: backends
                    .judge_name()
                    .unwrap_or_else(|| ("none".to_string(), "none".to_string())),
                custom_endpoint: backends.judge_on_custom_endpoint(),
                settings: &context.arena.judge,
                backend_for: &backend_for,
            };
            let transcript =
                talk.map(|t| (goal_of(item, t), crate::score::transcript::transcript(t)));
            let transcript = transcript.as_ref().map(|(g, t)| (g.as_str(), t.as_str()));
            let judged = grade_rubrics(
                judge,
                &item.checks,
                (&item.input, transcript),
                answer,
                checks,
            );
            let (graded, record) = tracing::Instrument::instrument(judged, span.clone()).await;
            (graded, Some(record))
        }
        scored => (
            super::mock_cause::with_mock_cause(&context.arena, item, scored),
            None,
        ),
    }
}

/// What a conversation's rubric judge is told the user wanted: its
/// `instructions`, else the conversation's first message.
fn goal_of(item: &Item, talk: &DialogueReport) -> String {
    let instructions = item.user.as_ref().and_then(|u| u.instructions.clone());
    instructions
        .or_else(|| talk.exchanges.first().map(|e| e.user.clone()))
        .unwrap_or_else(|| item.input.clone())
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

/// The agent's run of `item` on `backend` (`mock`: a scripted model) under
/// `budget`, with the run's own tools when it has a working copy (else the
/// arena's): the report, the conversation (`None` when the agent could not
/// start), and a conversation item's record.
pub(super) async fn run_agent(
    (arena, item): (&Arena, &Item),
    (backend, simulator): (Arc<dyn Backend>, Option<super::talk::SimulatorRoute>),
    (budget, own_tools): (Budget, Option<Arc<ToolBox>>),
    live_approval: Option<&super::options::RunApproval>,
) -> (RunReport, Option<Conversation>, Option<DialogueReport>) {
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
    let agent = if arena.answer.mode == tribunal_runtime::internal::json::ExtractionMode::Text {
        Agent::for_text(backend.clone(), contract)
    } else {
        Agent::new(backend.clone(), contract)
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
            if let Some(user) = &item.user {
                // Boxed: only conversation items pay for its future.
                let user = (user.as_ref(), &arena.user);
                let talk = Box::pin(super::talk::converse(&agent, item, user, simulator)).await;
                let report = talk.report.as_run_report();
                return (report, Some(talk.conversation), Some(talk.report));
            }
            let run = agent.run(&item.input).await;
            (run.report, Some(run.conversation), None)
        }
        Err(e) => {
            tracing::warn!(item = %item.id, "the schema cannot be used with this backend: {e}");
            (RunReport::failed(ErrorCode::SchemaMismatch), None, None)
        }
    }
}
