//! The statistics reports and comparisons quote: 95% intervals for pass
//! rates, the unbiased pass@k and pass^k estimators for repeated runs, and
//! the exact paired test `tribunal compare` gates on, and the kappas a
//! judge's calibration quotes. Pure functions of
//! counts; the distributions come from `statrs`.
//!
//! Every interval is a 95% interval ([`CONFIDENCE`]).

mod kappa;
mod paired;
mod pass_at_k;
mod proportion;

pub use kappa::{Kappa, cohen_kappa, fleiss_kappa};
pub use paired::{IntervalMethod, PairedItem, PairedMethod, PairedTest, paired_test, sign_test_p};
pub use pass_at_k::{pass_at_k, pass_hat_k};
pub use proportion::wilson;

use serde::{Deserialize, Serialize};

/// How far past a gate's bound (`--min-kappa`, `--max-injection-lift`) a
/// computed figure may fall and still meet it: floating-point error, not a
/// judgement.
pub(crate) const GATE_SLACK: f64 = 1e-9;

/// The confidence level of every interval tribunal reports.
pub const CONFIDENCE: f64 = 0.95;

/// A confidence interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

impl Interval {
    /// `low–high` as percentages with one decimal: `70.2–98.8%`.
    pub fn percent(&self) -> String {
        format!("{:.1}–{:.1}%", self.low * 100.0, self.high * 100.0)
    }

    /// `low … high` as signed percentage points: `-12.3 … +4.0 points`.
    pub fn points(&self) -> String {
        format!(
            "{:+.1} … {:+.1} points",
            self.low * 100.0,
            self.high * 100.0
        )
    }
}

/// The two-sided standard-normal quantile of [`CONFIDENCE`] (1.959964…).
fn z() -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    // Normal::new(0, 1) cannot fail: the standard deviation is positive.
    Normal::new(0.0, 1.0).map_or(1.959_963_984_540_054, |n| {
        n.inverse_cdf(1.0 - (1.0 - CONFIDENCE) / 2.0)
    })
}

/// The nearest-rank percentile of sorted `v` (0 when empty).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
