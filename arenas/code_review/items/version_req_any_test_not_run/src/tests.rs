use crate::req::{Op, Predicate, Version, VersionReq};

fn ver(major: u64, minor: u64, patch: u64, pre: Option<u64>) -> Version {
    Version { major, minor, patch, pre }
}

fn req(op: Op, version: Version) -> VersionReq {
    VersionReq { predicates: vec![Predicate { op, version }] }
}

#[test]
fn exact() {
    let r = req(Op::Exact, ver(1, 2, 3, None));
    assert!(r.matches(&ver(1, 2, 3, None)));
    assert!(!r.matches(&ver(1, 2, 4, None)));
}

#[test]
fn prerelease_needs_a_prerelease_predicate() {
    assert!(!req(Op::GreaterEq, ver(1, 0, 0, None)).matches(&ver(2, 0, 0, Some(1))));
    assert!(req(Op::GreaterEq, ver(2, 0, 0, Some(0))).matches(&ver(2, 0, 0, Some(1))));
}

fn test_any() {
    let r = VersionReq::any();
    for v in [ver(0, 0, 1, None), ver(0, 1, 0, None), ver(1, 0, 0, Some(2))] {
        assert!(r.matches(&v));
    }
}
