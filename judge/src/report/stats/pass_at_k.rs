//! The unbiased estimators of pass@k and pass^k from `n` runs of an item of
//! which `c` passed (Chen et al. 2021, "Evaluating Large Language Models
//! Trained on Code"; pass^k as in τ-bench).

/// pass@k: the chance that at least one of `k` runs drawn without
/// replacement from the `n` observed passes, `1 − C(n−c, k) / C(n, k)`;
/// `None` when `k` is 0 or more than `n` (the estimator needs `n ≥ k`).
///
/// Computed as a product, never through factorials, so it is exact enough
/// for any `n`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let c = c.min(n);
    if n - c < k {
        return Some(1.0);
    }
    // C(n−c, k)/C(n, k) = Π_{i = n−c+1}^{n} (1 − k/i)
    let miss: f64 = (n - c + 1..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - miss)
}

/// pass^k: the chance that all of `k` runs drawn without replacement from
/// the `n` observed pass, `C(c, k) / C(n, k)`; `None` when `k` is 0 or more
/// than `n`.
pub fn pass_hat_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let c = c.min(n);
    if c < k {
        return Some(0.0);
    }
    // Π_{i = 0}^{k−1} (c − i)/(n − i)
    Some((0..k).map(|i| (c - i) as f64 / (n - i) as f64).product())
}
