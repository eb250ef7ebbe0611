//! The gold test: R1 for every digit count and both ends (built with
//! debug assertions, an out-of-bounds `get_unchecked` panics: R2).
use itoa::Buffer;

#[test]
fn gold_format_matches_to_string() {
    let mut buf = Buffer::new();
    let mut n: u32 = 1;
    let mut edges = vec![0, u32::MAX, u32::MAX - 1];
    while let Some(next) = n.checked_mul(10) {
        edges.extend([n - 1, n, n + 1, next - 1]);
        n = next;
    }
    for n in edges.into_iter().chain((0..=u32::MAX).step_by(65_521)) {
        assert_eq!(buf.format(n), n.to_string());
    }
}
