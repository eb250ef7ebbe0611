use crate::version::{cmp_pre, Comparator, Op, Version};
use std::cmp::Ordering;

/// Every comparator must match; a prerelease version is only admitted when a
/// comparator names a prerelease of the same major.minor.patch.
pub fn matches_req(req: &[Comparator], ver: &Version) -> bool {
    if !req.iter().all(|cmp| matches_impl(cmp, ver)) {
        return false;
    }
    ver.pre.is_empty() || req.iter().any(|cmp| pre_is_compatible(cmp, ver))
}

fn pre_is_compatible(cmp: &Comparator, ver: &Version) -> bool {
    cmp.major == ver.major
        && cmp.minor == Some(ver.minor)
        && cmp.patch == Some(ver.patch)
        && !cmp.pre.is_empty()
}

fn matches_impl(cmp: &Comparator, ver: &Version) -> bool {
    match cmp.op {
        Op::Exact => matches_exact(cmp, ver),
        Op::Greater => matches_greater(cmp, ver),
        Op::GreaterEq => matches_exact(cmp, ver) || matches_greater(cmp, ver),
        Op::Less => matches_less(cmp, ver),
        Op::LessEq => matches_exact(cmp, ver) || matches_less(cmp, ver),
    }
}

fn matches_exact(cmp: &Comparator, ver: &Version) -> bool {
    ver.major == cmp.major
        && cmp.minor.map_or(true, |minor| ver.minor == minor)
        && cmp.patch.map_or(true, |patch| ver.patch == patch)
        && ver.pre == cmp.pre
}

fn matches_greater(cmp: &Comparator, ver: &Version) -> bool {
    if ver.major != cmp.major {
        return ver.major > cmp.major;
    }
    match cmp.minor {
        None => return false,
        Some(minor) if ver.minor != minor => return ver.minor > minor,
        Some(_) => {}
    }
    match cmp.patch {
        None => return false,
        Some(patch) if ver.patch != patch => return ver.patch > patch,
        Some(_) => {}
    }
    cmp_pre(&ver.pre, &cmp.pre) == Ordering::Greater
}

fn matches_less(cmp: &Comparator, ver: &Version) -> bool {
    if ver.major != cmp.major {
        return ver.major < cmp.major;
    }
    match cmp.minor {
        None => return false,
        Some(minor) if ver.minor != minor => return ver.minor < minor,
        Some(_) => {}
    }
    match cmp.patch {
        None => return false,
        Some(patch) if ver.patch != patch => return ver.patch < patch,
        Some(_) => {}
    }
    cmp_pre(&ver.pre, &cmp.pre) == Ordering::Less
}
