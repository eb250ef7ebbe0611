//! [`Summary`]: counts, pass rate, and with `--repeat K` the per-repeat pass
//! rates, pass^k and the unstable items.

use crate::results::{Outcome, ResultRow};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// The summary of a set of result rows.
///
/// ERROR is its own count and never a FAIL; the pass rate is
/// `pass / total`.
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
    let mut by_item: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
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
        by_item.entry(&row.id).or_default().push(row.outcome);
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
        .filter(|o| o.len() as u32 >= repeats && o.iter().all(|x| *x == Outcome::Pass))
        .count();
    let unstable = by_item
        .iter()
        .filter(|(_, o)| o.windows(2).any(|w| w[0] != w[1]))
        .map(|(id, _)| id.to_string())
        .collect();
    Summary {
        total: rows.len(),
        pass,
        fail,
        error,
        pass_rate: rate(pass, rows.len()),
        items: by_item.len(),
        repeats,
        per_repeat,
        pass_hat_k: rate(all_pass_items, by_item.len()),
        unstable,
    }
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 / total as f64
    }
}
