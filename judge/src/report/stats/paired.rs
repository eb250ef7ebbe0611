//! The paired comparison of two runs of the same items: an exact test on
//! the items that got worse against those that got better, and an interval
//! for the change in pass rate.

use super::{CONFIDENCE, Interval, wilson};
use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

/// The test behind [`PairedTest::p_value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairedMethod {
    /// One run per item on each side: McNemar's exact test — a two-sided
    /// binomial test (p = ½) on the discordant pairs (PASS → not PASS
    /// against not PASS → PASS).
    McnemarExact,
    /// Several runs per item: an exact two-sided sign test on the items
    /// whose pass rate went down against those whose rate went up (ties
    /// dropped). With one run per item it is McNemar's exact test.
    SignTestItemRates,
}

/// How [`PairedTest::delta_ci`] was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Newcombe's hybrid score interval for a difference of paired
    /// proportions (Newcombe 1998, method 10), from the Wilson intervals of
    /// both sides and the correlation of the pairs.
    NewcombePaired,
    /// The mean of the per-item differences in pass rate ± the Student t
    /// quantile (n − 1 degrees of freedom) × the standard error.
    TMeanItemDifferences,
}

/// One item's matched runs: how many, and how many passed on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairedItem {
    /// Runs matched on both sides (same repeats).
    pub runs: usize,
    /// Of those, PASS in the baseline.
    pub base_pass: usize,
    /// Of those, PASS in the new file.
    pub new_pass: usize,
}

/// The paired comparison of matched items.
///
/// Every figure is over the matched items only; ERROR counts as not
/// passed on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// The test behind `p_value`.
    pub method: PairedMethod,
    /// Matched items.
    pub items: usize,
    /// Items that got worse (with one run each: PASS → FAIL or ERROR).
    pub worse: usize,
    /// Items that got better (not PASS → PASS).
    pub better: usize,
    /// The exact two-sided p-value of `worse` against `better` (1 when
    /// neither happened).
    pub p_value: f64,
    /// The baseline's mean per-item pass rate.
    pub base_rate: f64,
    /// The new mean per-item pass rate.
    pub new_rate: f64,
    /// `new_rate − base_rate`.
    pub delta: f64,
    /// The 95% interval of `delta`; `None` without enough items.
    pub delta_ci: Option<Interval>,
    /// How `delta_ci` was computed.
    pub interval_method: IntervalMethod,
}

impl PairedTest {
    /// Whether this is a regression significant at `alpha`: more items got
    /// worse than better, and the two-sided p-value is below `alpha`.
    pub fn significant_regression(&self, alpha: f64) -> bool {
        self.worse > self.better && self.p_value < alpha
    }
}

/// The paired test of `items`. One run per item on every item gives
/// McNemar's exact test with Newcombe's interval; otherwise the sign test
/// on per-item pass rates with a t interval.
pub fn paired_test(items: &[PairedItem]) -> PairedTest {
    let items: Vec<PairedItem> = items.iter().copied().filter(|i| i.runs > 0).collect();
    let rate = |pass: usize, runs: usize| pass.min(runs) as f64 / runs as f64;
    let diffs: Vec<f64> = items
        .iter()
        .map(|i| rate(i.new_pass, i.runs) - rate(i.base_pass, i.runs))
        .collect();
    let worse = diffs.iter().filter(|d| **d < 0.0).count();
    let better = diffs.iter().filter(|d| **d > 0.0).count();
    let m = items.len();
    let mean = |f: &dyn Fn(&PairedItem) -> f64| {
        if m == 0 {
            0.0
        } else {
            items.iter().map(f).sum::<f64>() / m as f64
        }
    };
    let base_rate = mean(&|i| rate(i.base_pass, i.runs));
    let new_rate = mean(&|i| rate(i.new_pass, i.runs));
    let single = items.iter().all(|i| i.runs == 1);
    let (method, interval_method, delta_ci) = if single {
        let both = items
            .iter()
            .filter(|i| i.base_pass > 0 && i.new_pass > 0)
            .count();
        (
            PairedMethod::McnemarExact,
            IntervalMethod::NewcombePaired,
            newcombe_paired(both, worse, better, m - both - worse - better),
        )
    } else {
        (
            PairedMethod::SignTestItemRates,
            IntervalMethod::TMeanItemDifferences,
            t_mean_interval(&diffs),
        )
    };
    PairedTest {
        method,
        items: m,
        worse,
        better,
        p_value: sign_test_p(worse, better),
        base_rate,
        new_rate,
        delta: new_rate - base_rate,
        delta_ci,
        interval_method,
    }
}

/// The exact two-sided sign test (binomial, p = ½) of `worse` against
/// `better`: `min(1, 2·P[X ≤ min(worse, better)])`, X ~ Bin(worse + better, ½).
pub fn sign_test_p(worse: usize, better: usize) -> f64 {
    let n = worse + better;
    if n == 0 {
        return 1.0;
    }
    let tail = Binomial::new(0.5, n as u64).map_or(1.0, |b| b.cdf(worse.min(better) as u64));
    (2.0 * tail).min(1.0)
}

/// Newcombe's interval for `p_new − p_base` from the paired table: `both`
/// passed on both sides, `worse` only in the baseline, `better` only in the
/// new run, `neither` on neither.
fn newcombe_paired(both: usize, worse: usize, better: usize, neither: usize) -> Option<Interval> {
    let n = both + worse + better + neither;
    let (p1, (l1, u1)) = side(both + better, n)?;
    let (p2, (l2, u2)) = side(both + worse, n)?;
    let [a, b, c, d] = [both, worse, better, neither].map(|x| x as f64);
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    let phi = if margins == 0.0 {
        0.0
    } else {
        (a * d - b * c) / margins.sqrt()
    };
    let delta = p1 - p2;
    let spread = |x: f64, y: f64| (x * x - 2.0 * phi * x * y + y * y).max(0.0).sqrt();
    Some(Interval {
        low: (delta - spread(p1 - l1, u2 - p2)).max(-1.0),
        high: (delta + spread(u1 - p1, p2 - l2)).min(1.0),
    })
}

/// A proportion and its Wilson interval.
fn side(successes: usize, n: usize) -> Option<(f64, (f64, f64))> {
    let ci = wilson(successes, n)?;
    Some((successes as f64 / n as f64, (ci.low, ci.high)))
}

/// `mean ± t·sd/√m` of `diffs`; `None` with fewer than two.
fn t_mean_interval(diffs: &[f64]) -> Option<Interval> {
    let m = diffs.len();
    if m < 2 {
        return None;
    }
    let mf = m as f64;
    let mean = diffs.iter().sum::<f64>() / mf;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (mf - 1.0);
    let t = StudentsT::new(0.0, 1.0, mf - 1.0)
        .ok()?
        .inverse_cdf(1.0 - (1.0 - CONFIDENCE) / 2.0);
    let half = t * (var / mf).sqrt();
    Some(Interval {
        low: (mean - half).max(-1.0),
        high: (mean + half).min(1.0),
    })
}
