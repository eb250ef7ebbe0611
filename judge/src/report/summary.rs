//! [`Summary`]: counts, the pass rate with its 95% Wilson interval, and with
//! `--repeat K` the per-item pass rates, pass@k and pass^k, the per-repeat
//! pass rates and their spread, and the unstable items.
//!
//! Denominators: the pass rate and its interval are over every run, ERROR
//! included (an ERROR run did not pass); `error_rate` says how many of them
//! were ERROR. pass@k and pass^k are per item over that item's runs (ERROR
//! again counts as not passed), averaged over the items with at least `k`
//! runs.

use crate::report::stats::{Interval, pass_at_k, pass_hat_k, wilson};
use crate::rows::results::ResultRow;
use crate::score::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The largest `k` reported below the number of repeats: pass@k and pass^k
/// are given for `k = 1 ..= min(K, MAX_LISTED_K)` and for `k = K`.
pub const MAX_LISTED_K: usize = 10;

/// The counts of one repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// The 0-based repeat.
    pub repeat: u32,
    /// Rows of this repeat.
    pub total: usize,
    /// PASS rows.
    pub pass: usize,
    /// FAIL rows.
    pub fail: usize,
    /// ERROR rows.
    pub error: usize,
    /// `pass / total` (0 when there is no row).
    pub pass_rate: f64,
}

/// One item's runs over every repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemSummary {
    /// The item id.
    pub id: String,
    /// Its runs (repeats present).
    pub runs: usize,
    /// PASS runs.
    pub pass: usize,
    /// FAIL runs.
    pub fail: usize,
    /// ERROR runs.
    pub error: usize,
    /// `pass / runs`.
    pub pass_rate: f64,
}

/// pass@k and pass^k for one `k`, averaged over items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassAtK {
    /// The number of draws.
    pub k: usize,
    /// Items with at least `k` runs (the denominator).
    pub items: usize,
    /// The mean unbiased pass@k: at least one of `k` runs passes.
    pub pass_at_k: f64,
    /// The mean unbiased pass^k: all `k` runs pass.
    pub pass_hat_k: f64,
}

/// How far the per-repeat pass rates lie apart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RepeatSpread {
    /// The lowest per-repeat pass rate.
    pub min: f64,
    /// The highest.
    pub max: f64,
    /// Their sample standard deviation (n − 1).
    pub sd: f64,
}

/// The summary of a set of result rows.
///
/// ERROR is its own count and never a FAIL; the pass rate is
/// `pass / total`, ERROR runs included in `total`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Rows (items × repeats).
    pub total: usize,
    /// PASS rows.
    pub pass: usize,
    /// FAIL rows.
    pub fail: usize,
    /// ERROR rows.
    pub error: usize,
    /// `pass / total` (0 when there is no row).
    pub pass_rate: f64,
    /// The 95% Wilson interval of `pass_rate`, treating runs as independent
    /// trials (null without rows).
    #[serde(default)]
    pub pass_rate_ci: Option<Interval>,
    /// `error / total` (0 when there is no row).
    #[serde(default)]
    pub error_rate: f64,
    /// Distinct items.
    pub items: usize,
    /// How many repeats (the largest repeat index + 1).
    pub repeats: u32,
    /// One entry per repeat.
    pub per_repeat: Vec<RepeatSummary>,
    /// The share of items that passed in every repeat (pass^k, k = `repeats`).
    pub pass_hat_k: f64,
    /// Items whose outcome differs between repeats, in id order.
    pub unstable: Vec<String>,
    /// With repeats: every item's runs, in dataset order (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_item: Vec<ItemSummary>,
    /// With repeats: pass@k and pass^k for `k = 1 ..= min(K, 10)` and `k = K`
    /// (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_at: Vec<PassAtK>,
    /// With repeats: the spread of the per-repeat pass rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_spread: Option<RepeatSpread>,
}

impl Summary {
    /// Whether every row passed (and there is at least one).
    pub fn all_pass(&self) -> bool {
        self.total > 0 && self.pass == self.total
    }
}

/// Summarises `rows` (one per item and repeat).
pub fn summarize(rows: &[ResultRow]) -> Summary {
    let mut repeats: BTreeMap<u32, RepeatSummary> = BTreeMap::new();
    let mut by_item: BTreeMap<&str, (usize, Vec<Outcome>)> = BTreeMap::new();
    for row in rows {
        let r = repeats.entry(row.repeat).or_insert(RepeatSummary {
            repeat: row.repeat,
            total: 0,
            pass: 0,
            fail: 0,
            error: 0,
            pass_rate: 0.0,
        });
        r.total += 1;
        match row.outcome {
            Outcome::Pass => r.pass += 1,
            Outcome::Fail => r.fail += 1,
            Outcome::Error => r.error += 1,
        }
        let entry = by_item.entry(&row.id).or_insert((row.index, Vec::new()));
        entry.0 = entry.0.min(row.index);
        entry.1.push(row.outcome);
    }
    let per_repeat: Vec<RepeatSummary> = repeats
        .into_values()
        .map(|mut r| {
            r.pass_rate = rate(r.pass, r.total);
            r
        })
        .collect();
    let count = |o: Outcome| rows.iter().filter(|r| r.outcome == o).count();
    let (pass, fail, error) = (
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Error),
    );
    let repeats = rows.iter().map(|r| r.repeat + 1).max().unwrap_or(0);
    let all_pass_items = by_item
        .values()
        .filter(|(_, o)| o.len() as u32 >= repeats && o.iter().all(|x| *x == Outcome::Pass))
        .count();
    let unstable = by_item
        .iter()
        .filter(|(_, (_, o))| o.windows(2).any(|w| w[0] != w[1]))
        .map(|(id, _)| id.to_string())
        .collect();
    let (per_item, pass_at, repeat_spread) = if repeats > 1 {
        let mut items: Vec<(usize, ItemSummary)> = by_item
            .iter()
            .map(|(id, (index, outcomes))| (*index, item_summary(id, outcomes)))
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
        let items: Vec<ItemSummary> = items.into_iter().map(|(_, i)| i).collect();
        let pass_at = listed_ks(repeats as usize)
            .filter_map(|k| pass_at_for(&items, k))
            .collect();
        (items, pass_at, spread(&per_repeat))
    } else {
        (Vec::new(), Vec::new(), None)
    };
    Summary {
        total: rows.len(),
        pass,
        fail,
        error,
        pass_rate: rate(pass, rows.len()),
        pass_rate_ci: wilson(pass, rows.len()),
        error_rate: rate(error, rows.len()),
        items: by_item.len(),
        repeats,
        per_repeat,
        pass_hat_k: rate(all_pass_items, by_item.len()),
        unstable,
        per_item,
        pass_at,
        repeat_spread,
    }
}

fn item_summary(id: &str, outcomes: &[Outcome]) -> ItemSummary {
    let count = |o: Outcome| outcomes.iter().filter(|x| **x == o).count();
    ItemSummary {
        id: id.to_string(),
        runs: outcomes.len(),
        pass: count(Outcome::Pass),
        fail: count(Outcome::Fail),
        error: count(Outcome::Error),
        pass_rate: rate(count(Outcome::Pass), outcomes.len()),
    }
}

/// `1 ..= min(repeats, MAX_LISTED_K)`, then `repeats` if it is larger.
fn listed_ks(repeats: usize) -> impl Iterator<Item = usize> {
    let last = (repeats > MAX_LISTED_K).then_some(repeats);
    (1..=repeats.min(MAX_LISTED_K)).chain(last)
}

/// The mean pass@k and pass^k over the items with at least `k` runs.
fn pass_at_for(items: &[ItemSummary], k: usize) -> Option<PassAtK> {
    let mut n = 0;
    let (mut at, mut hat) = (0.0, 0.0);
    for item in items {
        if let (Some(a), Some(h)) = (
            pass_at_k(item.runs, item.pass, k),
            pass_hat_k(item.runs, item.pass, k),
        ) {
            n += 1;
            at += a;
            hat += h;
        }
    }
    (n > 0).then(|| PassAtK {
        k,
        items: n,
        pass_at_k: at / n as f64,
        pass_hat_k: hat / n as f64,
    })
}

fn spread(per_repeat: &[RepeatSummary]) -> Option<RepeatSpread> {
    let rates: Vec<f64> = per_repeat.iter().map(|r| r.pass_rate).collect();
    if rates.len() < 2 {
        return None;
    }
    let n = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / n;
    let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(RepeatSpread {
        min: rates.iter().copied().fold(f64::INFINITY, f64::min),
        max: rates.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        sd: var.sqrt(),
    })
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 / total as f64
    }
}
