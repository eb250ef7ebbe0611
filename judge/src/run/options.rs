//! [`RunOptions`]: how a [`ReadyRun`](super::ReadyRun) runs an arena, and
//! [`RunMode`]: what it does with the rows already in the results file.

use crate::pricing::Pricing;
use crate::run::batch::BatchSettings;
use crate::shard::Shard;
use std::path::PathBuf;
use std::sync::Arc;
use tribunal_runtime::Approver;
use tribunal_runtime::internal::approval::ApprovalPolicy;

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
    /// memory, in the [`RunResult`](super::RunResult) ([`RunOptions::in_memory`]; a caller
    /// that wants them as they finish watches
    /// [`Progress::finished_all`](crate::Progress::finished_all)).
    pub out: Option<PathBuf>,
    /// What the run does with the rows already in `out`.
    pub mode: RunMode,
    /// Write each run's transcript (conversation, usage, timings) as one
    /// file per item and repeat into this folder ([`crate::rows::transcript::Transcript`]).
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
    /// The provider's batch API the model requests go through, one round
    /// of batches per turn ([`crate::run::batch`]); set only from the plan
    /// ([`RunPlan::with_batch`](super::RunPlan::with_batch)), by the
    /// [`ReadyRun`](super::ReadyRun) it made. `None`: online.
    pub(crate) batch: Option<BatchSettings>,
    /// Every run's tool calls put to this approver under this policy,
    /// over the arena's `[approval]` (a person at a terminal, a UI). Its
    /// runs get their own config hash: decisions made live are not the
    /// scripted ones. `None`: the arena's `[approval]`, if any.
    pub approval: Option<RunApproval>,
}

/// An approval policy and the approver that decides its `ask` calls, for
/// every run of [`RunOptions::with_approval`].
#[derive(Clone)]
pub struct RunApproval {
    /// Which calls wait for a decision.
    pub policy: ApprovalPolicy,
    /// Who decides.
    pub approver: Arc<dyn Approver>,
}

impl std::fmt::Debug for RunApproval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunApproval")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// [`RunOptions::in_memory`]: rows only returned, no results file.
impl Default for RunOptions {
    fn default() -> Self {
        RunOptions::in_memory()
    }
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
            approval: None,
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

    /// Every run's tool calls under `policy`, decided by `approver`.
    pub fn with_approval(mut self, policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        self.approval = Some(RunApproval { policy, approver });
        self
    }

    /// Through the provider's batch API ([`crate::run::batch`]).
    pub(crate) fn with_batch(mut self, batch: Option<BatchSettings>) -> Self {
        self.batch = batch;
        self
    }
}

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
    /// arena or config hash, [`JudgeError::WouldReplace`](crate::JudgeError::WouldReplace)); `Replace` does.
    Replace,
}

impl RunMode {
    /// Whether the rows already in the results file are kept.
    pub(super) fn keeps_rows(self) -> bool {
        matches!(self, RunMode::Resume | RunMode::RetryErrors)
    }
}
