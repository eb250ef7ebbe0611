//! The gold test: R1 (an exact second of nanoseconds carries) and R2 (no
//! panic at the top of the range: an overflow is an error).
use duration::{add_current, sum, Error};
use std::time::Duration;

#[test]
fn gold_exact_second_carries() {
    assert_eq!(sum(&[(0, 500_000_000), (0, 500_000_000)]), Ok(Duration::new(1, 0)));
    assert_eq!(sum(&[(1, 1_000_000_000)]), Ok(Duration::new(2, 0)));
}

#[test]
fn gold_overflow_at_the_last_second_is_an_error() {
    let mut out = Duration::new(u64::MAX, 999_999_999);
    assert_eq!(add_current(0, 1, &mut out), Err(Error::NumberOverflow));
}
