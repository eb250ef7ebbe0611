//! [`Report`]: the scored report of a set of result rows, and its
//! renderings — JSON, Markdown, JUnit XML and a terminal table.
//!
//! Every rendering of a mock-backend run says so: `"mock": true` in JSON, a
//! banner elsewhere. Mock pass rates prove the plumbing, not a model.

pub mod calibration;
pub mod compare;
pub mod html;
pub mod injection;
pub mod stats;
pub mod summary;
pub mod tokens;

use crate::error::JudgeError;
use crate::pricing::{Cost, CostSummary, Pricing};
use crate::report::calibration::Calibration;
use crate::report::summary::{Summary, summarize};
use crate::report::tokens::TokenUse;
use crate::rows::RunHeader;
use crate::rows::results::{ResultRow, error_text};
use crate::score::checks::CheckResult;
use crate::score::{JudgeRecord, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Write as _;
use std::str::FromStr;
use tribunal_runtime::ErrorCode;
use tribunal_runtime::backend::CacheCounts;
use tribunal_runtime::conversation::Usage;
use tribunal_runtime::report::{BackendFailure, ToolCallRecord};

/// The version of the JSON report layout.
pub const REPORT_VERSION: u32 = 1;

/// The banner every non-JSON rendering of a mock run carries.
pub const MOCK_BANNER: &str = "MOCK RUN: a scripted model played each item's `mock` turns. \
These results prove the plumbing, not a model.";

/// The banner every non-JSON rendering of a replayed run carries.
pub const REPLAY_BANNER: &str = "REPLAY: every answer was read from a cassette recorded earlier; \
no model was asked.";

/// The scored report. Field names are a contract scripts rely on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// With `--calibrate`: the judge's verdicts against the items' gold
    /// verdicts. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// With `--calibrate` on an arena with `gold_rubric` labels: the rubric
    /// judge's verdicts against them. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rubric_calibration: Option<Calibration>,
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
}

impl ReportItem {
    /// The report entry of one result row, priced by the built-in table.
    pub fn from_row(r: &ResultRow) -> ReportItem {
        let pricing = Pricing::builtin();
        ReportItem::priced(r, pricing.cost_of(r), pricing.judge_cost_of(r))
    }

    /// [`priced`](ReportItem::priced), taking the row; `judge_cost` is the
    /// judge's part of `cost`, when the row has a judge.
    pub fn owned(r: ResultRow, cost: Cost, judge_cost: Option<Cost>) -> ReportItem {
        ReportItem {
            cost_usd: cost.usd(),
            judge_cost_usd: judge_cost.map(Cost::usd),
            judge: r.judge,
            id: r.id,
            repeat: r.repeat,
            outcome: r.outcome,
            error_code: r.error_code,
            backend_failure: r.backend_failure,
            checks: r.checks,
            answer: r.answer,
            usage: r.usage,
            cache: r.cache,
            tool_calls: r.tool_calls,
            turns: r.turns,
            repair_used: r.repair_used,
            finalized_after: r.finalized_after,
            wall_ms: r.wall_ms,
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
            .map(|(r, c)| ReportItem::priced(r, c, pricing.judge_cost_of(r)))
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
                ReportItem::owned(r, c, judge)
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
            model: header.model,
            backend: header.backend,
            summary: summarize(rows),
            cost,
            tokens: TokenUse::of(rows),
            cache: cache_total(rows),
            calibration: None,
            rubric_calibration: None,
            items: Vec::new(),
        };
        (report, costs)
    }

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

    /// Renders the report in `format`.
    pub fn render(&self, format: ReportFormat) -> String {
        match format {
            ReportFormat::Terminal => self.to_terminal(),
            ReportFormat::Json => self.to_json(),
            ReportFormat::Markdown => self.to_markdown(),
            ReportFormat::Junit => self.to_junit(),
        }
    }

    /// Pretty JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            // Serialising plain data with string keys cannot fail.
            format!("{{\"error\": {:?}}}", e.to_string())
        });
        s.push('\n');
        s
    }

    /// A fixed-width table with the summary underneath.
    pub fn to_terminal(&self) -> String {
        let mut out = String::new();
        if self.mock {
            let _ = writeln!(out, "*** {MOCK_BANNER} ***\n");
        }
        if self.replayed {
            let _ = writeln!(out, "*** {REPLAY_BANNER} ***\n");
        }
        let _ = writeln!(
            out,
            "arena {} · backend {} · model {} · config {}",
            self.arena, self.backend, self.model, self.config_hash
        );
        let width = self
            .items
            .iter()
            .map(|i| i.id.len())
            .max()
            .unwrap_or(2)
            .max(2);
        let repeated = self.summary.repeats > 1;
        let _ = writeln!(out, "{:<width$}  {:<6} {:>8}  DETAIL", "ID", "RESULT", "MS");
        for item in &self.items {
            let id = if repeated {
                format!("{}#{}", item.id, item.repeat)
            } else {
                item.id.clone()
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:<6} {:>8.0}  {}",
                id,
                item.outcome.as_str(),
                item.wall_ms,
                self.detail(item)
            );
        }
        let _ = writeln!(out, "\n{}", self.summary_line());
        if let Some(line) = self.pass_at_line() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "{}", self.cost.line());
        let _ = writeln!(out, "{}", self.tokens.line(self.mock));
        if let Some(line) = self.cache_line() {
            let _ = writeln!(out, "{line}");
        }
        if !self.summary.per_item.is_empty() {
            let width = width.max("ITEM".len());
            let _ = writeln!(
                out,
                "\n{:<width$}  {:>9}  {:>6}  ERROR",
                "ITEM", "PASS/RUNS", "RATE"
            );
            for i in &self.summary.per_item {
                let _ = writeln!(
                    out,
                    "{:<width$}  {:>9}  {:>5.1}%  {}",
                    i.id,
                    format!("{}/{}", i.pass, i.runs),
                    i.pass_rate * 100.0,
                    i.error
                );
            }
        }
        for c in self.calibrations() {
            out.push_str(&c.to_terminal());
        }
        if self.mock {
            let _ = writeln!(out, "(mock run)");
        }
        out
    }

    /// Markdown: banner, summary, one table row per item.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Arena `{}`\n\n", self.arena);
        if self.mock {
            let _ = writeln!(out, "> **{MOCK_BANNER}**\n");
        }
        if self.replayed {
            let _ = writeln!(out, "> **{REPLAY_BANNER}**\n");
        }
        let _ = writeln!(
            out,
            "Backend `{}`, model `{}`, config `{}`.\n",
            self.backend, self.model, self.config_hash
        );
        let _ = writeln!(out, "**{}**\n", self.summary_line());
        if let Some(line) = self.pass_at_line() {
            let _ = writeln!(out, "{line}\n");
        }
        let _ = writeln!(out, "{}\n", self.cost.line());
        let _ = writeln!(out, "{}\n", self.tokens.line(self.mock));
        if let Some(line) = self.cache_line() {
            let _ = writeln!(out, "{line}\n");
        }
        let _ = writeln!(out, "| id | repeat | result | ms | detail |");
        let _ = writeln!(out, "|---|---:|---|---:|---|");
        for item in &self.items {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.0} | {} |",
                md_escape(&item.id),
                item.repeat,
                item.outcome.as_str(),
                item.wall_ms,
                md_escape(&self.detail(item))
            );
        }
        if !self.summary.per_item.is_empty() {
            let _ = writeln!(out, "\n## Per item over {} repeats\n", self.summary.repeats);
            let _ = writeln!(out, "| id | PASS | runs | pass rate | ERROR |");
            let _ = writeln!(out, "|---|---:|---:|---:|---:|");
            for i in &self.summary.per_item {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {:.1}% | {} |",
                    md_escape(&i.id),
                    i.pass,
                    i.runs,
                    i.pass_rate * 100.0,
                    i.error
                );
            }
        }
        for c in self.calibrations() {
            let _ = writeln!(out, "\n## Calibration: {}\n", c.title());
            for line in c.lines() {
                let _ = writeln!(out, "- {}", md_escape(&line));
            }
            let rows = c.disagreement_rows();
            if !rows.is_empty() {
                let _ = writeln!(out, "\n| item | gold | judged |\n|---|---|---|");
                for (id, gold, judged) in rows {
                    let _ = writeln!(out, "| {} | {gold} | {judged} |", md_escape(&id));
                }
            }
        }
        out
    }

    /// JUnit XML: one `<testcase>` per item and repeat; a FAIL is a
    /// `<failure>`, an ERROR an `<error>`.
    pub fn to_junit(&self) -> String {
        let s = &self.summary;
        let total_s: f64 = self.items.iter().map(|i| i.wall_ms).sum::<f64>() / 1000.0;
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<testsuites name=\"tribunal\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
            s.total, s.fail, s.error, total_s
        );
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\">",
            xml(&self.arena),
            s.total,
            s.fail,
            s.error,
            total_s
        );
        let _ = writeln!(out, "    <properties>");
        let mut properties: Vec<(String, String)> = [
            ("backend", self.backend.as_str()),
            ("model", self.model.as_str()),
            ("config_hash", self.config_hash.as_str()),
            ("mock", if self.mock { "true" } else { "false" }),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
        if self.replayed {
            properties.push(("replayed".into(), "true".into()));
        }
        properties.push(("pass_rate".into(), format!("{:.6}", s.pass_rate)));
        if let Some(ci) = &s.pass_rate_ci {
            properties.push(("pass_rate_ci95_low".into(), format!("{:.6}", ci.low)));
            properties.push(("pass_rate_ci95_high".into(), format!("{:.6}", ci.high)));
        }
        properties.push(("error_rate".into(), format!("{:.6}", s.error_rate)));
        properties.push(("cost_usd".into(), format!("{:.6}", self.cost.total_usd)));
        properties.push((
            "cost_unpriced_runs".into(),
            self.cost.unpriced_runs.to_string(),
        ));
        properties.extend(self.tokens.properties());
        for p in &s.pass_at {
            properties.push((format!("pass_at_{}", p.k), format!("{:.6}", p.pass_at_k)));
            properties.push((format!("pass_hat_{}", p.k), format!("{:.6}", p.pass_hat_k)));
        }
        for c in self.calibrations() {
            properties.extend(c.properties());
        }
        for (k, v) in &properties {
            let _ = writeln!(out, "      <property name=\"{k}\" value=\"{}\"/>", xml(v));
        }
        let _ = writeln!(out, "    </properties>");
        for item in &self.items {
            let name = if s.repeats > 1 {
                format!("{}#{}", item.id, item.repeat)
            } else {
                item.id.clone()
            };
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                xml(&self.arena),
                xml(&name),
                item.wall_ms / 1000.0
            );
            match item.outcome {
                Outcome::Pass => out.push_str("/>\n"),
                Outcome::Fail => {
                    let failed: Vec<String> = item
                        .checks
                        .iter()
                        .filter(|c| !c.ok)
                        .map(|c| format!("{}: {}", c.kind, c.detail))
                        .collect();
                    let _ = writeln!(
                        out,
                        ">\n      <failure type=\"check\" message=\"{}\">{}</failure>\n    </testcase>",
                        xml(&format!("{} check(s) failed", failed.len())),
                        xml(&failed.join("\n"))
                    );
                }
                Outcome::Error => {
                    let _ = writeln!(
                        out,
                        ">\n      <error type=\"{}\" message=\"{}\"/>\n    </testcase>",
                        xml(code_text(item.error_code)),
                        xml(&format!(
                            "the run ended with {}; checks skipped",
                            error_text(item.error_code, item.backend_failure.as_ref())
                        ))
                    );
                }
            }
        }
        if self.mock {
            let _ = writeln!(out, "    <system-out>{}</system-out>", xml(MOCK_BANNER));
        } else if self.replayed {
            let _ = writeln!(out, "    <system-out>{}</system-out>", xml(REPLAY_BANNER));
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }

    /// `15 run(s) of 15 item(s): 15 PASS, 0 FAIL, 0 ERROR — pass rate 100.0%
    /// (95% CI 79.6–100.0%, Wilson, over all 15 runs; ERROR counts as not
    /// passed)`, and with repeats the per-repeat rates, pass^K and the
    /// unstable items.
    pub fn summary_line(&self) -> String {
        let s = &self.summary;
        let mut line = format!(
            "{} run(s) of {} item(s): {} PASS, {} FAIL, {} ERROR — pass rate {:.1}%",
            s.total,
            s.items,
            s.pass,
            s.fail,
            s.error,
            s.pass_rate * 100.0
        );
        if let Some(ci) = &s.pass_rate_ci {
            let _ = write!(
                line,
                " (95% CI {}, Wilson, over all {} runs; ERROR counts as not passed)",
                ci.percent(),
                s.total
            );
        }
        if s.repeats > 1 {
            let per: Vec<String> = s
                .per_repeat
                .iter()
                .map(|r| format!("{:.1}%", r.pass_rate * 100.0))
                .collect();
            let _ = write!(line, "; per repeat [{}]", per.join(", "));
            if let Some(sp) = &s.repeat_spread {
                let _ = write!(
                    line,
                    " (spread {:.1}–{:.1}%, sd {:.1} points)",
                    sp.min * 100.0,
                    sp.max * 100.0,
                    sp.sd * 100.0
                );
            }
            let _ = write!(
                line,
                "; pass^{} {:.1}%; unstable: {}",
                s.repeats,
                s.pass_hat_k * 100.0,
                if s.unstable.is_empty() {
                    "none".to_string()
                } else {
                    s.unstable.join(", ")
                }
            );
        }
        line
    }

    /// With `--cache`: `cache: 28 hit(s), 2 miss(es) (2 model call(s) made)`.
    pub fn cache_line(&self) -> Option<String> {
        self.cache.map(|c| {
            format!(
                "cache: {} hit(s), {} miss(es) ({} model call(s) made)",
                c.hits, c.misses, c.misses
            )
        })
    }

    /// An item's one-line detail, with its cost unless this is a mock run
    /// (where every run costs 0).
    fn detail(&self, item: &ReportItem) -> String {
        let detail = item_detail(item);
        if self.mock {
            return detail;
        }
        match item.cost_usd {
            Some(usd) => format!("{detail} · ${usd:.6}"),
            None => format!("{detail} · unpriced"),
        }
    }

    /// With repeats: `pass@k` and `pass^k` per listed `k` on one line,
    /// saying which items they average over; `None` without repeats.
    pub fn pass_at_line(&self) -> Option<String> {
        let s = &self.summary;
        if s.pass_at.is_empty() {
            return None;
        }
        let at: Vec<String> = s
            .pass_at
            .iter()
            .map(|p| format!("@{} {:.1}%", p.k, p.pass_at_k * 100.0))
            .collect();
        let hat: Vec<String> = s
            .pass_at
            .iter()
            .map(|p| format!("^{} {:.1}%", p.k, p.pass_hat_k * 100.0))
            .collect();
        let items = s.pass_at.iter().map(|p| p.items).min().unwrap_or(0);
        Some(format!(
            "pass{} · pass{} (unbiased estimators, per item over its runs, mean over the {} item(s) with ≥ k runs; ERROR counts as not passed)",
            at.join(", "),
            hat.join(", "),
            items
        ))
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

/// An error code's spelling, `unknown` when there is none.
fn code_text(code: Option<ErrorCode>) -> &'static str {
    code.map_or("unknown", ErrorCode::as_str)
}

/// The one-line detail of an item: the error code, the failed checks, or
/// how many checks held.
fn item_detail(item: &ReportItem) -> String {
    match item.outcome {
        Outcome::Error => format!(
            "{} (checks skipped)",
            error_text(item.error_code, item.backend_failure.as_ref())
        ),
        Outcome::Fail => item
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{}: {}", c.kind, c.detail))
            .collect::<Vec<_>>()
            .join("; "),
        Outcome::Pass => format!("{} check(s) held", item.checks.len()),
    }
}

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

fn xml(s: &str) -> String {
    html::escape_markup(s, |c, out| match c {
        '\'' => out.push_str("&apos;"),
        '\n' => out.push_str("&#10;"),
        // Characters XML 1.0 cannot carry.
        c if (c as u32) < 0x20 && c != '\t' && c != '\r' => out.push('\u{FFFD}'),
        c => out.push(c),
    })
}

/// Text made safe in a Markdown table cell or line: `|` escaped, newlines
/// as spaces.
pub(crate) fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_escapes_markup_quotes_and_line_breaks_and_replaces_what_it_cannot_carry() {
        assert_eq!(
            super::xml("a<b>&\"c\" 'd'\nx\u{1}\ty\r"),
            "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;&#10;x\u{FFFD}\ty\r"
        );
        assert_eq!(super::html::escape_html("'\n"), "&#39;\n");
    }
}
