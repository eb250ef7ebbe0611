//! The renderings of a [`Leaderboard`]: a terminal table and Markdown (the
//! HTML page is `html::leaderboard_page`'s). Every format shows the same
//! cells ([`Leaderboard::table`]) and the same notes under them
//! ([`Leaderboard::notes`]).

use super::markdown::{code_cell, code_span};
use super::{MOCK_BANNER, md_escape as md};
use crate::pricing::CostSummary;
use crate::report::leaderboard::{Leaderboard, Versus};
use crate::report::stats::PairedMethod;
use crate::report::tokens::figure;
use std::fmt::Write as _;

/// The columns of the leaderboard's table, in order.
pub const LEADERBOARD_COLUMNS: [&str; 10] = [
    "#",
    "run",
    "PASS / runs",
    "pass rate",
    "95% CI (Wilson)",
    "tokens / PASS",
    "cost (USD)",
    "latency p50 / p95",
    "vs baseline (paired 95% CI)",
    "paired test",
];

impl Leaderboard {
    /// One row of cells per standing, in [`LEADERBOARD_COLUMNS`] order.
    pub fn table(&self) -> Vec<[String; 10]> {
        self.standings
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let side = &s.side;
                let (delta, test) = match &s.versus_baseline {
                    None => ("baseline".to_string(), String::new()),
                    Some(v) => (delta_cell(v), test_cell(v)),
                };
                [
                    (i + 1).to_string(),
                    s.name.clone(),
                    format!("{} / {}", side.pass, side.total),
                    format!("{:.1}%", side.pass_rate * 100.0),
                    side.pass_rate_ci.map(|ci| ci.percent()).unwrap_or_default(),
                    side.tokens.per_pass.map_or_else(|| "none".into(), figure),
                    cost_cell(&s.cost),
                    format!("{:.0} / {:.0} ms", side.wall_p50_ms, side.wall_p95_ms),
                    delta,
                    test,
                ]
            })
            .collect()
    }

    /// What the table's figures mean, and what keeps a run from being a
    /// clean pair with the baseline: one sentence each.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "baseline: {}; each other run against it with the paired test `tribunal compare` gates on ({}), over the item runs both files hold; ERROR counts as not passed",
            self.baseline,
            self.methods()
        )];
        notes.push(
            "tokens / PASS: input + output tokens of every run (ERROR included) over the PASS runs; cost at the pricing table's prices (mock runs and live runs on a local server cost 0)"
                .to_string(),
        );
        for s in &self.standings {
            if let Some(v) = s
                .versus_baseline
                .as_ref()
                .filter(|v| !v.problems.is_empty())
            {
                notes.push(format!(
                    "{} and the baseline are not a clean pair ({}): see `tribunal compare`",
                    s.name,
                    v.problems.join(", ")
                ));
            }
        }
        let unpriced: Vec<&crate::report::leaderboard::Standing> = self
            .standings
            .iter()
            .filter(|s| s.cost.unpriced_runs > 0)
            .collect();
        if !unpriced.is_empty() {
            let runs: Vec<String> = unpriced
                .iter()
                .map(|s| {
                    format!(
                        "{} ({} of {} runs)",
                        s.name, s.cost.unpriced_runs, s.side.total
                    )
                })
                .collect();
            let mut models: Vec<&str> = unpriced
                .iter()
                .flat_map(|s| s.cost.unpriced_models.iter().map(String::as_str))
                .collect();
            models.sort_unstable();
            models.dedup();
            notes.push(format!(
                "cost unpriced for {}: model(s) in no pricing table ({}); add them with --pricing",
                runs.join(", "),
                models.join(", ")
            ));
        }
        let samplings: Vec<(&str, &str)> = self
            .standings
            .iter()
            .filter_map(|s| Some((s.name.as_str(), s.side.sampling.as_deref()?)))
            .collect();
        if samplings.windows(2).any(|w| w[0].1 != w[1].1) {
            let each: Vec<String> = samplings.iter().map(|(n, s)| format!("{n}: {s}")).collect();
            notes.push(format!(
                "the runs were sampled differently ({}): a difference may be the sampling's, not the model's",
                each.join("; ")
            ));
        }
        notes
    }

    /// The paired tests the comparisons used, named once each.
    fn methods(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for v in self
            .standings
            .iter()
            .filter_map(|s| s.versus_baseline.as_ref())
        {
            let name = match v.paired.method {
                PairedMethod::McnemarExact => "McNemar exact, two-sided",
                PairedMethod::SignTestItemRates => "sign test on per-item pass rates, two-sided",
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        match names.is_empty() {
            true => "none: one run".to_string(),
            false => names.join("; "),
        }
    }

    /// The table for the terminal: columns padded to their widest cell,
    /// then the notes.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "leaderboard {} · {} run(s)\n",
            self.arena,
            self.standings.len()
        );
        if self.has_mock() {
            let _ = writeln!(out, "{MOCK_BANNER}");
        }
        let header: [String; 10] = LEADERBOARD_COLUMNS.map(str::to_string);
        let rows: Vec<[String; 10]> = std::iter::once(header).chain(self.table()).collect();
        let mut widths = [0usize; 10];
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
        for note in self.notes() {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }

    /// Markdown: a heading, the mock banner when a run is the mock's, the
    /// table (run names as code), then the notes as a list.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Leaderboard {}\n\n", code_span(&self.arena));
        if self.has_mock() {
            let _ = writeln!(out, "> **{MOCK_BANNER}**\n");
        }
        let _ = writeln!(out, "| {} |", LEADERBOARD_COLUMNS.join(" | "));
        let aligns: Vec<&str> = LEADERBOARD_COLUMNS
            .iter()
            .map(|c| if *c == "run" { "---" } else { "---:" })
            .collect();
        let _ = writeln!(out, "|{}|", aligns.join("|"));
        for row in self.table() {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 1 { code_cell(c) } else { md(c) })
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
        for note in self.notes() {
            let _ = writeln!(out, "- {}", md(&note));
        }
        out
    }
}

/// `+5.0 points (-3.1 … +12.0)`: the paired change over the matched item
/// runs, with its interval.
fn delta_cell(v: &Versus) -> String {
    let ci = v
        .paired
        .delta_ci
        .map(|ci| format!(" ({:+.1} … {:+.1})", ci.low * 100.0, ci.high * 100.0))
        .unwrap_or_default();
    format!("{:+.1} points{ci}", v.paired.delta * 100.0)
}

/// `p = 0.5000 · 2 worse, 3 better of 10`.
fn test_cell(v: &Versus) -> String {
    format!(
        "p = {:.4} · {} worse, {} better of {}",
        v.paired.p_value, v.paired.worse, v.paired.better, v.paired.items
    )
}

/// The total cost: `$0.001234`, `≥ $0.001234` when some runs are
/// unpriced, `unpriced` when none is priced.
fn cost_cell(c: &CostSummary) -> String {
    match (c.priced_runs, c.unpriced_runs) {
        (0, n) if n > 0 => "unpriced".to_string(),
        (_, 0) => format!("${:.6}", c.total_usd),
        _ => format!("≥ ${:.6}", c.total_usd),
    }
}
