use std::cmp::Ordering;

pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// Prerelease tag, empty for a release (`1.2.0-alpha` has "alpha").
    pub pre: String,
}

#[derive(Clone, Copy)]
pub enum Op {
    Exact,
    Greater,
    GreaterEq,
    Less,
    LessEq,
}

/// One comparator of a requirement; `<1.2` has `minor: Some(2)`, `patch: None`.
pub struct Comparator {
    pub op: Op,
    pub major: u64,
    pub minor: Option<u64>,
    pub patch: Option<u64>,
    pub pre: String,
}

/// A release (empty tag) sorts after every prerelease of the same version;
/// in this model two prerelease tags compare as plain strings.
pub fn cmp_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.cmp(b),
    }
}
