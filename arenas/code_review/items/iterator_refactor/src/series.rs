/// Whether `xs` never decreases.
pub fn is_sorted(xs: &[i64]) -> bool {
    xs.windows(2).all(|w| w[0] <= w[1])
}

/// The largest gap between neighbours (0 for fewer than two values).
pub fn max_gap(xs: &[i64]) -> i64 {
    xs.windows(2).map(|w| (w[1] - w[0]).abs()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges() {
        assert!(is_sorted(&[]));
        assert!(is_sorted(&[1]));
        assert!(!is_sorted(&[2, 1]));
        assert_eq!(max_gap(&[]), 0);
        assert_eq!(max_gap(&[5]), 0);
        assert_eq!(max_gap(&[1, 4, 2]), 3);
    }
}
