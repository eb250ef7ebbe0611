//! [`Leaderboard`]: several runs of one arena side by side — one model (or
//! one setting) per results file — each with its pass rate and 95% Wilson
//! interval, tokens per PASS, cost and latency, and each against a chosen
//! baseline with the paired test `tribunal compare` gates on. Built from
//! the figures a comparison already computes ([`Side`], [`Comparison`],
//! [`CostSummary`]): no second statistic. Pure: it takes rows, not files.

use crate::pricing::{CostSummary, Pricing};
use crate::report::compare::{Allow, Comparison, Side, SideInput};
use crate::report::stats::PairedTest;
use crate::rows::results::ResultRow;
use serde::{Deserialize, Serialize};

/// One run as the leaderboard is given it: where its rows came from (a
/// file's path, shown when two runs would read alike) and the rows.
#[derive(Debug, Clone, Copy)]
pub struct Entrant<'a> {
    /// Where the rows came from: a results file's path.
    pub source: &'a str,
    /// The rows (the latest per item run).
    pub rows: &'a [ResultRow],
    /// Whether the file's last line was torn (the paired test still runs;
    /// the problem is listed).
    pub torn: bool,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// How the run is named: `backend/model`, or its source when another
    /// run has the same backend and model.
    pub name: String,
    /// Where its rows came from.
    pub source: String,
    /// Its numbers: outcomes, pass rate and interval, tokens, latency.
    pub side: Side,
    /// What it cost at the pricing table's prices.
    pub cost: CostSummary,
    /// It against the baseline; `None` for the baseline itself.
    pub versus_baseline: Option<Versus>,
}

/// A run against the baseline, as `tribunal compare BASELINE RUN` sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// Its pass rate minus the baseline's (over all rows of each).
    pub pass_rate_delta: f64,
    /// Item runs present in both files.
    pub matched: usize,
    /// The paired test over the matched item runs.
    pub paired: PairedTest,
    /// Why the two files are not a clean pair (the codes `compare` exits
    /// with: `arena_mismatch`, `missing_runs`, …); empty when they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// Several runs of an arena, best pass rate first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The arena's name (of the baseline's rows).
    pub arena: String,
    /// The baseline's name (one of the standings').
    pub baseline: String,
    /// Every run, by pass rate (highest first), then by lower interval
    /// bound, then in the order given.
    pub standings: Vec<Standing>,
}

impl Leaderboard {
    /// The leaderboard of `entrants`, each compared with
    /// `entrants[baseline]` (the first when out of range), priced with
    /// `pricing`.
    pub fn new(entrants: &[Entrant<'_>], baseline: usize, pricing: &Pricing) -> Leaderboard {
        let baseline = if baseline < entrants.len() {
            baseline
        } else {
            0
        };
        let names = names(entrants);
        let base = entrants.get(baseline);
        let mut standings: Vec<Standing> = entrants
            .iter()
            .zip(&names)
            .enumerate()
            .map(|(i, (e, name))| Standing {
                name: name.clone(),
                source: e.source.to_string(),
                side: Side::of(e.rows),
                cost: CostSummary::of(e.rows, pricing).1,
                versus_baseline: base.filter(|_| i != baseline).map(|b| versus(b, e)),
            })
            .collect();
        let arena = standings
            .get(baseline)
            .map(|s| s.side.arena.clone())
            .unwrap_or_default();
        let baseline_name = names.get(baseline).cloned().unwrap_or_default();
        // A stable sort: equal runs keep the order given.
        standings.sort_by(|a, b| {
            let low = |s: &Standing| s.side.pass_rate_ci.map_or(0.0, |ci| ci.low);
            b.side
                .pass_rate
                .total_cmp(&a.side.pass_rate)
                .then_with(|| low(b).total_cmp(&low(a)))
        });
        Leaderboard {
            arena,
            baseline: baseline_name,
            standings,
        }
    }

    /// Whether any run came from the mock backend.
    pub fn has_mock(&self) -> bool {
        self.standings.iter().any(|s| s.side.mock)
    }
}

/// `entrant` against `base`: the comparison `tribunal compare` makes,
/// kept to its pass-rate delta, paired test and input problems.
fn versus(base: &Entrant<'_>, entrant: &Entrant<'_>) -> Versus {
    let comparison = Comparison::checked(
        SideInput {
            rows: base.rows,
            torn: base.torn,
        },
        SideInput {
            rows: entrant.rows,
            torn: entrant.torn,
        },
        Allow::default(),
    );
    Versus {
        pass_rate_delta: comparison.pass_rate_delta,
        matched: comparison.matched,
        problems: comparison
            .problems
            .iter()
            .map(|p| p.code().to_string())
            .collect(),
        paired: comparison.paired,
    }
}

/// Each entrant's name: `backend/model` of its first row, or its source
/// when another entrant reads the same.
fn names(entrants: &[Entrant<'_>]) -> Vec<String> {
    let plain: Vec<String> = entrants
        .iter()
        .map(|e| match e.rows.first() {
            Some(row) => format!("{}/{}", row.backend, row.model),
            None => e.source.to_string(),
        })
        .collect();
    plain
        .iter()
        .zip(entrants)
        .map(
            |(name, e)| match plain.iter().filter(|n| *n == name).count() {
                1 => name.clone(),
                _ => e.source.to_string(),
            },
        )
        .collect()
}
