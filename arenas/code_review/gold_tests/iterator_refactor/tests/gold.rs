//! The gold test: R1 and R2, the same answers (no panic) for empty,
//! one-element and longer slices.
use series::{is_sorted, max_gap};

#[test]
fn gold_behaviour_is_unchanged() {
    assert!(is_sorted(&[]));
    assert!(is_sorted(&[7]));
    assert!(is_sorted(&[1, 1, 2, 9]));
    assert!(!is_sorted(&[1, 3, 2]));
    assert_eq!(max_gap(&[]), 0);
    assert_eq!(max_gap(&[-4]), 0);
    assert_eq!(max_gap(&[1, 4, 2]), 3);
    assert_eq!(max_gap(&[10, -10, -5]), 20);
}
