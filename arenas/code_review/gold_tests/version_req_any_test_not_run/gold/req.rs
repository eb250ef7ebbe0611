//! The gold test's regression: `src/req.rs` without the change's fix (any()
//! matches nothing again). R3: the crate's tests must fail with it.
//! Match versions against a requirement made of predicates.

pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// Numeric prerelease tag: `1.0.0-3` has `Some(3)`, a release has `None`.
    pub pre: Option<u64>,
}

impl Version {
    /// Sort key: a release sorts after every prerelease of the same version.
    fn key(&self) -> (u64, u64, u64, bool, u64) {
        let (is_release, pre) = (self.pre.is_none(), self.pre.unwrap_or(0));
        (self.major, self.minor, self.patch, is_release, pre)
    }
}

pub enum Op {
    Exact,
    GreaterEq,
    Less,
}

pub struct Predicate {
    pub op: Op,
    pub version: Version,
}

impl Predicate {
    pub fn matches(&self, ver: &Version) -> bool {
        match self.op {
            Op::Exact => ver.key() == self.version.key(),
            Op::GreaterEq => ver.key() >= self.version.key(),
            Op::Less => ver.key() < self.version.key(),
        }
    }

    /// A prerelease is only admitted by a predicate that names a prerelease
    /// of the same major.minor.patch.
    pub fn pre_tag_is_compatible(&self, ver: &Version) -> bool {
        let v = &self.version;
        ver.pre.is_none()
            || (v.pre.is_some() && (v.major, v.minor, v.patch) == (ver.major, ver.minor, ver.patch))
    }
}

pub struct VersionReq {
    pub predicates: Vec<Predicate>,
}

impl VersionReq {
    /// The requirement that every version satisfies.
    pub fn any() -> VersionReq {
        VersionReq { predicates: Vec::new() }
    }

    pub fn matches(&self, ver: &Version) -> bool {
        self.predicates.iter().all(|p| p.matches(ver))
            && self.predicates.iter().any(|p| p.pre_tag_is_compatible(ver))
    }
}
