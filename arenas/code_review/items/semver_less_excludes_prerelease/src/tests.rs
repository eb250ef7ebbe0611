use crate::eval::matches_req;
use crate::version::{Comparator, Op, Version};

fn ver(major: u64, minor: u64, patch: u64, pre: &str) -> Version {
    Version { major, minor, patch, pre: pre.to_string() }
}

fn cmp(op: Op, major: u64, minor: Option<u64>, patch: Option<u64>, pre: &str) -> Comparator {
    Comparator { op, major, minor, patch, pre: pre.to_string() }
}

#[test]
fn less_than_minor() {
    let req = [cmp(Op::Less, 1, Some(2), None, "")];
    assert!(matches_req(&req, &ver(1, 1, 9, "")));
    assert!(!matches_req(&req, &ver(1, 2, 0, "")));
    assert!(!matches_req(&req, &ver(1, 2, 3, "")));
}

#[test]
fn less_than_minor_excludes_its_prereleases() {
    let req = [
        cmp(Op::GreaterEq, 1, Some(2), Some(0), "alpha"),
        cmp(Op::Less, 1, Some(2), None, ""),
    ];
    assert!(!matches_req(&req, &ver(1, 2, 0, "alpha")));
}

#[test]
fn less_eq_and_prerelease_bounds() {
    let req = [cmp(Op::LessEq, 1, Some(2), None, "")];
    assert!(matches_req(&req, &ver(1, 2, 5, "")));
    assert!(!matches_req(&req, &ver(1, 3, 0, "")));
    let req = [cmp(Op::Less, 1, Some(2), Some(3), "beta")];
    assert!(matches_req(&req, &ver(1, 2, 3, "alpha")));
    assert!(!matches_req(&req, &ver(1, 2, 3, "")));
}
