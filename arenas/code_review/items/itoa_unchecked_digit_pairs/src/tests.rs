use crate::Buffer;

#[test]
fn matches_to_string() {
    let mut buf = Buffer::new();
    let edges = [0, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 1_000_000_000, u32::MAX];
    for n in edges.into_iter().chain((0..=u32::MAX).step_by(7919)) {
        assert_eq!(buf.format(n), n.to_string());
    }
}
