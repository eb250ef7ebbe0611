//! Chance-corrected agreement: Cohen's kappa of two raters (a judge
//! against gold labels) with its large-sample interval, and Fleiss' kappa
//! of many ratings per item (a judge against itself across repeats).

use super::{Interval, z};
use serde::{Deserialize, Serialize};

/// Cohen's kappa with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Kappa {
    /// κ = (p_o − p_e) / (1 − p_e).
    pub value: f64,
    /// κ ± z·SE, clipped to [−1, 1], where SE is the large-sample standard
    /// error of Fleiss, Cohen & Everitt (1969); `None` when it is not
    /// defined (the estimate sits on a bound with no spread, e.g. κ = 1).
    pub ci: Option<Interval>,
    /// That standard error.
    pub std_error: f64,
}

/// Cohen's kappa of the square contingency `table` (`table[i][j]`: items
/// the first rater put in class i and the second in class j). `None` when
/// the table is empty or not square, or when chance agreement is 1 (both
/// raters used one and the same class for everything: κ is 0/0).
pub fn cohen_kappa(table: &[Vec<u64>]) -> Option<Kappa> {
    let k = table.len();
    if k == 0 || table.iter().any(|row| row.len() != k) {
        return None;
    }
    let n: u64 = table.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let p = |i: usize, j: usize| table[i][j] as f64 / nf;
    let rows: Vec<f64> = (0..k).map(|i| (0..k).map(|j| p(i, j)).sum()).collect();
    let cols: Vec<f64> = (0..k).map(|j| (0..k).map(|i| p(i, j)).sum()).collect();
    let observed: f64 = (0..k).map(|i| p(i, i)).sum();
    let chance: f64 = (0..k).map(|i| rows[i] * cols[i]).sum();
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    let kappa = (observed - chance) / (1.0 - chance);
    // Fleiss, Cohen & Everitt (1969), the variance without the null
    // hypothesis: (A + B − C) / (n (1 − p_e)²).
    let a: f64 = (0..k)
        .map(|i| p(i, i) * (1.0 - (rows[i] + cols[i]) * (1.0 - kappa)).powi(2))
        .sum();
    let b: f64 = (0..k)
        .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
        .map(|(i, j)| p(i, j) * (cols[i] + rows[j]).powi(2))
        .sum::<f64>()
        * (1.0 - kappa).powi(2);
    let c = (kappa - chance * (1.0 - kappa)).powi(2);
    let variance = ((a + b - c) / (nf * (1.0 - chance).powi(2))).max(0.0);
    let std_error = variance.sqrt();
    let ci = (std_error > 0.0).then(|| {
        let half = z() * std_error;
        Interval {
            low: (kappa - half).max(-1.0),
            high: (kappa + half).min(1.0),
        }
    });
    Some(Kappa {
        value: kappa,
        ci,
        std_error,
    })
}

/// Fleiss' kappa of `counts` (`counts[item][class]`: how many of the
/// item's ratings fell in the class). Items rated fewer than twice say
/// nothing about agreement and are left out; items may have different
/// numbers of ratings. `None` when fewer than one item has two ratings or
/// when every rating is one class (κ is 0/0).
pub fn fleiss_kappa(counts: &[Vec<u64>]) -> Option<f64> {
    let rated: Vec<&Vec<u64>> = counts
        .iter()
        .filter(|c| c.iter().sum::<u64>() >= 2)
        .collect();
    if rated.is_empty() {
        return None;
    }
    let classes = rated.iter().map(|c| c.len()).max().unwrap_or(0);
    let total: u64 = rated.iter().map(|c| c.iter().sum::<u64>()).sum();
    let mut share = vec![0.0; classes];
    let mut agreement = 0.0;
    for item in &rated {
        let m = item.iter().sum::<u64>() as f64;
        let same: f64 = item.iter().map(|&x| (x as f64) * (x as f64 - 1.0)).sum();
        agreement += same / (m * (m - 1.0));
        for (j, &x) in item.iter().enumerate() {
            share[j] += x as f64 / total as f64;
        }
    }
    let observed = agreement / rated.len() as f64;
    let chance: f64 = share.iter().map(|s| s * s).sum();
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    Some((observed - chance) / (1.0 - chance))
}
