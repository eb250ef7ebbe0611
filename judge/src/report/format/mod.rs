//! The formats of the report: every way the figures are written out. The
//! figures themselves — what a report *computes* — live beside this folder
//! in `report/`: the [`Report`] model (`report/mod.rs`), the summary and
//! its intervals (`summary`), tokens per run and per PASS (`tokens`),
//! judge calibration (`calibration`), injection lift (`injection`), the
//! comparison of two runs (`compare`) and the statistics under them
//! (`stats`). Here is only how they read:
//!
//! - the run report as a terminal table (`terminal`), Markdown
//!   (`markdown`), JSON (`json`) and JUnit XML (`junit`), chosen by
//!   [`ReportFormat`];
//! - a comparison as text, Markdown and JSON (`compare`) and as the body
//!   of a pull-request comment (`comment`);
//! - a leaderboard of several runs as text and Markdown (`leaderboard`);
//! - each of them as one self-contained HTML page ([`html`]);
//! - one run up close, its conversation and checks (`show`).
//!
//! The split runs one way: a format reads figures, a figure never reads a
//! format — so a new format is a file here, and a figure changes in one
//! place for every format. A figure keeps its own one-line wording (for
//! example `TokenUse::line`, `Calibration::lines`): every format quotes
//! the same sentence, and it is said where the number is made. Process
//! exit codes are neither: the CLI maps outcomes to them.
//!
//! Every rendering of a mock-backend run says so: `"mock": true` in JSON,
//! a banner elsewhere. Mock pass rates prove the plumbing, not a model.

mod comment;
mod compare;
pub mod html;
mod json;
mod junit;
mod leaderboard;
mod markdown;
mod show;
mod terminal;

pub use comment::{CommentOptions, SideCosts};
pub use compare::COMPARE_VERSION;
pub use leaderboard::LEADERBOARD_COLUMNS;
pub(crate) use markdown::md_escape;
pub use show::{SHOWN_CHARS, show_run};

use crate::error::JudgeError;
use crate::report::{Report, ReportItem};
use crate::rows::results::error_text;
use crate::score::Outcome;
use std::str::FromStr;
use tribunal_runtime::ErrorCode;

/// The banner every non-JSON rendering of a mock run carries.
pub const MOCK_BANNER: &str = "MOCK RUN: a scripted model played each item's `mock` turns. \
These results prove the plumbing, not a model.";

/// The banner every non-JSON rendering of a replayed run carries.
pub const REPLAY_BANNER: &str = "REPLAY: every answer was read from a cassette recorded earlier; \
no model was asked.";

/// The banner every rendering (JSON: `unsandboxed: true`) of rows whose
/// commands ran with no sandbox carries.
pub const UNSANDBOXED_BANNER: &str = "UNSANDBOXED: the model's commands ran with NO sandbox \
([sandbox] engine = \"none-trusted-container\"), as the runner's user, with its files and \
network; trust these results only from a container that was itself the sandbox.";

/// The report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportFormat {
    /// A table for people (the default).
    #[default]
    Terminal,
    /// The JSON report.
    Json,
    /// Markdown (for CI summaries).
    Markdown,
    /// JUnit XML (for CI test views).
    Junit,
}

impl FromStr for ReportFormat {
    type Err = JudgeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "terminal" | "table" => Ok(ReportFormat::Terminal),
            "json" => Ok(ReportFormat::Json),
            "markdown" | "md" => Ok(ReportFormat::Markdown),
            "junit" => Ok(ReportFormat::Junit),
            other => Err(JudgeError::Usage(format!(
                "unknown report format {other:?} (terminal, json, markdown, junit)"
            ))),
        }
    }
}

impl Report {
    /// Renders the report in `format`.
    pub fn render(&self, format: ReportFormat) -> String {
        match format {
            ReportFormat::Terminal => self.to_terminal(),
            ReportFormat::Json => self.to_json(),
            ReportFormat::Markdown => self.to_markdown(),
            ReportFormat::Junit => self.to_junit(),
        }
    }

    /// What the runs spent, as the terminal and Markdown say it: the cost
    /// line and the token line, or the one line saying a mock run measured
    /// neither ([`TokenUse::not_measured`](crate::report::tokens::TokenUse::not_measured)).
    fn spend_lines(&self) -> Vec<String> {
        match self.tokens.not_measured(self.mock) {
            Some(line) => vec![line.to_string()],
            None => vec![self.cost.line(), self.tokens.line(self.mock)],
        }
    }

    /// An item's one-line detail, with its cost unless this is a mock run
    /// (where every run costs 0).
    fn detail(&self, item: &ReportItem) -> String {
        self.detail_as(item, str::to_string)
    }

    /// [`Report::detail`] with the item's own text (check details, error
    /// text: what a model or dataset wrote) passed through `text`, the
    /// cost beside it left as it is.
    fn detail_as(&self, item: &ReportItem, text: impl Fn(&str) -> String) -> String {
        let detail = text(&item_detail(item));
        if self.mock {
            return detail;
        }
        match item.cost_usd {
            Some(usd) => format!("{detail} · ${usd:.6}"),
            None => format!("{detail} · unpriced"),
        }
    }
}

/// An error code's spelling, `unknown` when there is none.
fn code_text(code: Option<ErrorCode>) -> &'static str {
    code.map_or("unknown", ErrorCode::as_str)
}

/// The one-line detail of an item: the error code, the failed checks, or
/// how many checks held.
fn item_detail(item: &ReportItem) -> String {
    let detail = outcome_detail(item);
    match conversation_detail(item) {
        Some(talk) => format!("{detail} · {talk}"),
        None => detail,
    }
}

/// A conversation item's part of its detail: how it ended (the user's stop
/// is reported, never trusted alone) and what the simulated user spent —
/// `user_stopped after 3 user turn(s), user 812 tok $0.000120`.
pub(crate) fn conversation_detail(item: &ReportItem) -> Option<String> {
    let talk = item.conversation.as_ref()?;
    let by = talk.end.as_str();
    let turns = talk.exchanges.len();
    let tokens = talk.user_usage.total();
    let cost = match item.user_cost_usd {
        Some(Some(usd)) => format!(" ${usd:.6}"),
        Some(None) => " unpriced".to_string(),
        None => String::new(),
    };
    Some(format!(
        "{by} after {turns} user turn(s), user {tokens} tok{cost}"
    ))
}

/// [`item_detail`] without a conversation's part.
fn outcome_detail(item: &ReportItem) -> String {
    match item.outcome {
        Outcome::Error => format!(
            "{} (checks skipped)",
            error_text(
                item.error_code,
                item.backend_failure.as_ref(),
                item.error_detail.as_deref(),
            )
        ),
        Outcome::Fail => failed_checks(item).join("; "),
        Outcome::Pass => format!("{} check(s) held", item.checks.len()),
    }
}

/// Each failed check of an item as `kind: detail`, in check order: what
/// every format says of a FAIL.
fn failed_checks(item: &ReportItem) -> Vec<String> {
    item.checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.kind, c.detail))
        .collect()
}
