//! The Wilson score interval of a binomial proportion.

use super::{Interval, z};

/// The 95% Wilson score interval of `successes` out of `n` trials; `None`
/// when `n` is 0.
///
/// Unlike the textbook `p ± z·√(p(1−p)/n)` it stays inside `[0, 1]` and does
/// not collapse to a point at 0% or 100%, which is where small arenas live.
pub fn wilson(successes: usize, n: usize) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    let (k, n) = (successes.min(n) as f64, n as f64);
    let z = z();
    let p = k / n;
    let z2n = z * z / n;
    let center = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n) * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt();
    Some(Interval {
        low: (center - half).max(0.0),
        high: (center + half).min(1.0),
    })
}
