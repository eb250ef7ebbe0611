//! The report: what a set of result rows comes to. This folder holds the
//! figures — the [`Report`] model here, and beside it the summary and its
//! intervals ([`summary`]), token use ([`tokens`]), judge calibration
//! ([`calibration`]), injection lift ([`injection`]), the comparison of
//! two runs ([`compare`]), several runs side by side ([`leaderboard`])
//! and the statistics under them ([`stats`]). How they are written out —
//! terminal, Markdown, JSON, JUnit, HTML, the PR comment — is
//! [`format`](mod@format)'s (its module doc says why the split runs that
//! way).

pub mod calibration;
pub mod compare;
pub mod format;
pub mod injection;
pub mod leaderboard;
pub mod stats;
pub mod summary;
pub mod tokens;
pub mod user_stops;

use crate::pricing::{Cost, CostSummary, Pricing};
use crate::report::calibration::Calibration;
use crate::report::summary::{Summary, summarize};
use crate::report::tokens::TokenUse;
use crate::rows::RunHeader;
use crate::rows::results::ResultRow;
use crate::score::checks::CheckResult;
use crate::score::{JudgeRecord, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::ErrorCode;
use tribunal_runtime::internal::backend::CacheCounts;
use tribunal_runtime::internal::conversation::Usage;
use tribunal_runtime::internal::report::{BackendFailure, ToolCallRecord};

/// The version of the JSON report layout.
pub const REPORT_VERSION: u32 = 1;

/// The scored report. Field names are a contract scripts rely on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Report {
    /// The layout version ([`REPORT_VERSION`]).
    pub version: u32,
    /// The arena's name.
    pub arena: String,
    /// Whether the rows came from the mock backend.
    pub mock: bool,
    /// Whether the rows were replayed from a cassette (written only when
    /// true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// The backend's name.
    pub backend: String,
    /// The model name.
    pub model: String,
    /// The config hash of the rows.
    pub config_hash: String,
    /// How the answers were sampled (`temperature 0`, `the server's
    /// default`, …; mixed rows' ways joined by ` | `). Absent for mock
    /// rows, which are not sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<String>,
    /// Whether any row's commands ran with no sandbox (`[sandbox] engine =
    /// "none-trusted-container"`): every format then carries the
    /// unsandboxed banner. Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsandboxed: bool,
    /// Counts and rates.
    pub summary: Summary,
    /// What the runs cost under the pricing table.
    pub cost: CostSummary,
    /// The tokens the runs spent: per item run, per PASS, the cached share
    /// (see [`crate::report::tokens`] for the definitions). Reports written before
    /// it read as no runs.
    #[serde(default)]
    pub tokens: TokenUse,
    /// With `--cache`: requests answered from the cache and sent to the
    /// model, over every run. Absent without a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheCounts>,
    #[doc(hidden)] // no promise: read by tribunal's own crates
    /// With `--calibrate`: the judge's verdicts against the items' gold
    /// verdicts. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    #[doc(hidden)] // no promise: read by tribunal's own crates
    /// With `--calibrate` on an arena with `gold_rubric` labels: the rubric
    /// judge's verdicts against them. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rubric_calibration: Option<Calibration>,
    /// What the reader must know about the rows themselves (a torn last
    /// line left out of the file read): one sentence each, shown above the
    /// items. Absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// One entry per item and repeat, in dataset order.
    pub items: Vec<ReportItem>,
}

/// One item's run in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportItem {
    /// The item id.
    pub id: String,
    /// The 0-based repeat.
    pub repeat: u32,
    /// `PASS`, `FAIL` or `ERROR`.
    pub outcome: Outcome,
    /// The stable error code of an ERROR, else null.
    pub error_code: Option<ErrorCode>,
    /// On `backend_error`: kind, HTTP status, provider error type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_failure: Option<BackendFailure>,
    /// On an ERROR, what is known of why beyond its code (the row's
    /// `error_detail`). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_detail: Option<String>,
    /// The check results (empty on ERROR: checks are skipped).
    pub checks: Vec<CheckResult>,
    /// The validated answer (PASS and FAIL only).
    pub answer: Option<Value>,
    /// Token usage.
    pub usage: Usage,
    /// What the run cost in USD; null when its model is unpriced.
    pub cost_usd: Option<f64>,
    /// With `--cache`: the run's cache hits and misses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheCounts>,
    /// With `rubric` checks: the judge, its usage and whether it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
    /// What the judge cost in USD (part of `cost_usd`); absent without a
    /// judge, null when its model is unpriced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_cost_usd: Option<Option<f64>>,
    /// What the simulated user cost in USD (part of `cost_usd`); absent
    /// without a model playing it, null when its model is unpriced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_cost_usd: Option<Option<f64>>,
    /// Tool calls executed.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model turns.
    pub turns: u32,
    /// Whether the repair turn was used.
    pub repair_used: bool,
    /// Why the tool phase ended early, when the answer was asked for with
    /// tools disabled (a budget's code, or `tool_calls_repeated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalized_after: Option<ErrorCode>,
    /// Wall time, in milliseconds.
    pub wall_ms: f64,
    /// On a conversation item: the conversation turn by turn, how it
    /// ended, the user simulator's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Box<crate::rows::results::ConversationRecord>>,
}

impl ReportItem {
    /// The report entry of one result row, priced by the built-in table.
    pub fn from_row(r: &ResultRow) -> ReportItem {
        let pricing = Pricing::builtin();
        ReportItem::priced(r, pricing.cost_of(r), pricing.judge_cost_of(r))
            .with_user_cost(pricing.user_cost_of(r))
    }

    /// Says what the simulated user cost (part of `cost_usd`).
    pub(crate) fn with_user_cost(mut self, user_cost: Option<Cost>) -> ReportItem {
        self.user_cost_usd = user_cost.map(Cost::usd);
        self
    }

    /// [`priced`](ReportItem::priced), taking the row; `judge_cost` is the
    /// judge's part of `cost`, when the row has a judge.
    pub fn owned(r: ResultRow, cost: Cost, judge_cost: Option<Cost>) -> ReportItem {
        ReportItem {
            cost_usd: cost.usd(),
            judge_cost_usd: judge_cost.map(Cost::usd),
            user_cost_usd: None,
            judge: r.judge,
            id: r.id,
            repeat: r.repeat,
            outcome: r.outcome,
            error_code: r.error_code,
            backend_failure: r.backend_failure,
            error_detail: r.error_detail,
            checks: r.checks,
            answer: r.answer,
            usage: r.usage,
            cache: r.cache,
            tool_calls: r.tool_calls,
            turns: r.turns,
            repair_used: r.repair_used,
            finalized_after: r.finalized_after,
            wall_ms: r.wall_ms,
            conversation: r.conversation,
        }
    }

    /// The report entry of one result row that cost `cost`.
    pub fn priced(r: &ResultRow, cost: Cost, judge_cost: Option<Cost>) -> ReportItem {
        ReportItem::owned(r.clone(), cost, judge_cost)
    }
}

impl Report {
    /// Builds the report of `rows` (one arena; ordered as given), priced by
    /// the built-in table. An empty set of rows gives an empty report named
    /// `arena`.
    pub fn from_rows(arena: &str, rows: &[ResultRow]) -> Report {
        Report::priced(arena, rows, Pricing::builtin())
    }

    /// [`from_rows`](Report::from_rows) priced by `pricing`.
    pub fn priced(arena: &str, rows: &[ResultRow], pricing: &Pricing) -> Report {
        let (mut report, costs) = Report::head(arena, rows, pricing);
        report.items = rows
            .iter()
            .zip(costs)
            .map(|(r, c)| {
                ReportItem::priced(r, c, pricing.judge_cost_of(r))
                    .with_user_cost(pricing.user_cost_of(r))
            })
            .collect();
        report
    }

    /// [`priced`](Report::priced), taking the rows: their answers, checks
    /// and tool calls move into the report instead of being copied (a
    /// 10,000-run report spent most of its time copying them).
    pub fn priced_owned(arena: &str, rows: Vec<ResultRow>, pricing: &Pricing) -> Report {
        let (mut report, costs) = Report::head(arena, &rows, pricing);
        report.items = rows
            .into_iter()
            .zip(costs)
            .map(|(r, c)| {
                let judge = pricing.judge_cost_of(&r);
                let user = pricing.user_cost_of(&r);
                ReportItem::owned(r, c, judge).with_user_cost(user)
            })
            .collect();
        report
    }

    /// Everything but the items, and the cost of each row.
    fn head(arena: &str, rows: &[ResultRow], pricing: &Pricing) -> (Report, Vec<Cost>) {
        let (costs, cost) = CostSummary::of(rows, pricing);
        let header = RunHeader::of(rows);
        let report = Report {
            version: REPORT_VERSION,
            arena: header.arena.clone().unwrap_or_else(|| arena.to_string()),
            mock: header.mock,
            replayed: header.replayed,
            config_hash: header.config_hash(),
            sampling: header.sampling(),
            unsandboxed: header.unsandboxed,
            model: header.model,
            backend: header.backend,
            summary: summarize(rows),
            cost,
            tokens: TokenUse::of(rows),
            cache: cache_total(rows),
            calibration: None,
            rubric_calibration: None,
            notes: Vec::new(),
            items: Vec::new(),
        };
        (report, costs)
    }

    #[doc(hidden)] // no promise: read by tribunal's own crates
    /// The calibrations the report carries: the verdicts', then the rubric
    /// judge's.
    pub fn calibrations(&self) -> impl Iterator<Item = &Calibration> {
        self.calibration.iter().chain(&self.rubric_calibration)
    }

    /// Whether the run succeeds: every item passed, or the pass rate is at
    /// least `min_pass_rate` when one is given.
    pub fn passed(&self, min_pass_rate: Option<f64>) -> bool {
        self.summary.all_pass() || min_pass_rate.is_some_and(|m| self.summary.pass_rate >= m)
    }
}

/// The cache hits and misses over `rows`; `None` when no row used a cache.
pub(crate) fn cache_total(rows: &[ResultRow]) -> Option<CacheCounts> {
    rows.iter()
        .filter_map(|r| r.cache)
        .reduce(|a, b| CacheCounts {
            hits: a.hits.saturating_add(b.hits),
            misses: a.misses.saturating_add(b.misses),
        })
}
