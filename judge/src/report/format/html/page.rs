//! [`ReportPage`]: the data the HTML report is built from — header, counts,
//! chart data and one entry per item and repeat — gathered from result rows
//! and, when recorded, their transcripts. Pure: no I/O except through the
//! transcript lookup the caller passes in.

use crate::pricing::{CostSummary, Pricing};
use crate::report::ReportItem;
use crate::report::calibration::Calibration;
use crate::report::format::html::charts::{Histogram, TokenBars};
use crate::report::summary::{Summary, summarize};
use crate::report::tokens::TokenUse;
use crate::rows::RunHeader;
use crate::rows::results::ResultRow;
use crate::rows::transcript::Transcript;
use serde::{Deserialize, Serialize};
use std::path::Path;
use tribunal_runtime::internal::conversation::Usage;

/// Everything the report page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportPage {
    /// The arena's name.
    pub arena: String,
    /// The backend's name.
    pub backend: String,
    /// The model name.
    pub model: String,
    /// Whether the rows came from the mock backend (the page then carries
    /// the mock banner).
    pub mock: bool,
    /// Whether every row was replayed from a cassette (the page then
    /// carries the replay banner). Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// Whether any row's commands ran with no sandbox (the page then
    /// carries the unsandboxed banner). Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsandboxed: bool,
    /// When the last row was written, `YYYY-MM-DD HH:MM UTC` (empty when no
    /// row carries a time).
    pub date: String,
    /// The config hash (every distinct one, comma-separated, if mixed).
    pub config_hash: String,
    /// How the answers were sampled (the report's `sampling`); absent on
    /// mock rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<String>,
    /// Counts, pass rate, pass^k and unstable items.
    pub summary: Summary,
    /// What the runs cost.
    pub cost: CostSummary,
    /// The tokens spent: per item run, per PASS, the cached share (the
    /// report's `tokens`).
    pub token_use: TokenUse,
    /// With `--cache`: cache hits and misses over every run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<tribunal_runtime::internal::backend::CacheCounts>,
    /// The latency histogram.
    pub latency: Histogram,
    /// The tokens-per-item chart.
    pub tokens: TokenBars,
    /// With `--calibrate`: the judge's verdicts against gold, then the
    /// rubric judge's against human labels (each when there is gold).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calibrations: Vec<Calibration>,
    /// One entry per item and repeat, in report order.
    pub items: Vec<PageItem>,
    /// Things the reader should know (unreadable transcripts, mixed config
    /// hashes), in the order found.
    pub notes: Vec<String>,
}

/// One item's run on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageItem {
    /// The run as the JSON report holds it (flattened: the page data keeps
    /// the same field names).
    #[serde(flatten)]
    pub run: ReportItem,
    /// The transcript, when one was recorded.
    pub transcript: Option<Transcript>,
}

impl ReportPage {
    /// The page of `rows` (latest row per key, as [`crate::rows::results::latest`] gives
    /// them), without transcripts.
    pub fn from_rows(rows: &[ResultRow]) -> ReportPage {
        Self::build(rows, |_| Ok(None))
    }

    /// The page of `rows`, with each run's transcript read from `dir` when
    /// one was recorded there. A transcript that exists but cannot be read
    /// becomes a note on the page, not an error.
    pub fn with_transcripts(rows: &[ResultRow], dir: &Path) -> ReportPage {
        Self::build(rows, |row| {
            Transcript::read(dir, &row.id, row.repeat).map_err(|e| e.to_string())
        })
    }

    /// The page of `rows`, asking `transcript` for each row's transcript
    /// (`Err` is a message shown as a note), priced by the built-in table.
    pub fn build(
        rows: &[ResultRow],
        transcript: impl FnMut(&ResultRow) -> Result<Option<Transcript>, String>,
    ) -> ReportPage {
        Self::build_priced(rows, Pricing::builtin(), transcript)
    }

    /// [`build`](ReportPage::build) priced by `pricing`.
    pub fn build_priced(
        rows: &[ResultRow],
        pricing: &Pricing,
        mut transcript: impl FnMut(&ResultRow) -> Result<Option<Transcript>, String>,
    ) -> ReportPage {
        let (costs, cost) = CostSummary::of(rows, pricing);
        let header = RunHeader::of(rows);
        let mut notes = Vec::new();
        if header.config_hashes.len() > 1 {
            notes.push(format!(
                "rows of {} different config hashes are mixed in this file",
                header.config_hashes.len()
            ));
        }
        let mut items = Vec::with_capacity(rows.len());
        for (row, row_cost) in rows.iter().zip(costs) {
            let transcript = match transcript(row) {
                Ok(t) => t,
                Err(message) => {
                    notes.push(format!(
                        "transcript of {} #{}: {message}",
                        row.id, row.repeat
                    ));
                    None
                }
            };
            items.push(PageItem {
                run: ReportItem::priced(row, row_cost, pricing.judge_cost_of(row))
                    .with_user_cost(pricing.user_cost_of(row)),
                transcript,
            });
        }
        let latencies: Vec<f64> = rows.iter().map(|r| r.wall_ms).collect();
        let tokens: Vec<Usage> = rows.iter().map(|r| r.usage).collect();
        ReportPage {
            arena: header.arena.clone().unwrap_or_default(),
            mock: header.mock,
            replayed: header.replayed,
            unsandboxed: header.unsandboxed,
            config_hash: header.config_hash(),
            sampling: header.sampling(),
            backend: header.backend,
            model: header.model,
            date: rows
                .iter()
                .map(|r| r.finished_at_ms)
                .max()
                .filter(|ms| *ms > 0)
                .map(utc_minute)
                .unwrap_or_default(),
            summary: summarize(rows),
            cost,
            token_use: TokenUse::of(rows),
            cache: crate::report::cache_total(rows),
            latency: Histogram::of(&latencies),
            tokens: TokenBars::of(&tokens),
            calibrations: Vec::new(),
            items,
            notes,
        }
    }
}

/// `ms` since the Unix epoch as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_minute(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{d:02} {h:02}:{m:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_minutes() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc_minute(1_786_000_000_000), "2026-08-06 07:06 UTC");
    }
}
