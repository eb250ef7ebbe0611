//! Sum the parts of a human-written duration such as "1s 500ms".
use std::time::Duration;

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    NumberOverflow,
}

fn add(a: u64, b: u64) -> Result<u64, Error> {
    a.checked_add(b).ok_or(Error::NumberOverflow)
}

/// Adds `sec` seconds and `nsec` nanoseconds (`nsec` may exceed one second)
/// to `out`.
pub fn add_current(mut sec: u64, nsec: u64, out: &mut Duration) -> Result<(), Error> {
    let mut nsec = add(out.subsec_nanos() as u64, nsec)?;
    if nsec > 1_000_000_000 {
        sec = add(sec, nsec / 1_000_000_000)?;
        nsec %= 1_000_000_000;
    }
    sec = add(out.as_secs(), sec)?;
    *out = Duration::new(sec, nsec as u32);
    Ok(())
}

/// Sums `(seconds, nanoseconds)` parts.
pub fn sum(parts: &[(u64, u64)]) -> Result<Duration, Error> {
    let mut out = Duration::ZERO;
    for &(sec, nsec) in parts {
        add_current(sec, nsec, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_nanoseconds() {
        let d = sum(&[(1, 500_000_000), (0, 700_000_000)]).unwrap();
        assert_eq!(d, Duration::new(2, 200_000_000));
    }

    #[test]
    fn overflow_is_an_error() {
        assert_eq!(sum(&[(u64::MAX, 0), (1, 0)]), Err(Error::NumberOverflow));
        assert_eq!(sum(&[(u64::MAX, 1_500_000_000)]), Err(Error::NumberOverflow));
    }
}
