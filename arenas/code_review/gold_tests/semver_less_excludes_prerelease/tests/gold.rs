//! The gold test: R1 (`<1.2` admits no 1.2.x, prereleases of 1.2.0
//! included) and R2 (releases compare as before under `<` and `<=`).
use semver::eval::matches_req;
use semver::version::{Comparator, Op, Version};

fn cmp(op: Op, major: u64, minor: Option<u64>, patch: Option<u64>, pre: &str) -> Comparator {
    Comparator { op, major, minor, patch, pre: pre.to_string() }
}

fn ver(major: u64, minor: u64, patch: u64, pre: &str) -> Version {
    Version { major, minor, patch, pre: pre.to_string() }
}

#[test]
fn gold_less_than_minor_excludes_its_prereleases() {
    let req = [cmp(Op::GreaterEq, 1, Some(2), Some(0), "alpha"), cmp(Op::Less, 1, Some(2), None, "")];
    assert!(!matches_req(&req, &ver(1, 2, 0, "alpha")));
}

#[test]
fn gold_releases_compare_as_before() {
    let less = [cmp(Op::Less, 1, Some(2), Some(3), "")];
    assert!(matches_req(&less, &ver(1, 2, 2, "")));
    assert!(!matches_req(&less, &ver(1, 2, 3, "")));
    let less_minor = [cmp(Op::Less, 1, Some(2), None, "")];
    assert!(matches_req(&less_minor, &ver(1, 1, 9, "")));
    assert!(!matches_req(&less_minor, &ver(1, 2, 0, "")));
    let less_eq = [cmp(Op::LessEq, 1, Some(2), None, "")];
    assert!(matches_req(&less_eq, &ver(1, 2, 5, "")));
    assert!(!matches_req(&less_eq, &ver(1, 3, 0, "")));
}
