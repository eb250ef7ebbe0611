"""Sum the parts of a human-written duration such as "1s 500ms"."""

NANOS = 1_000_000_000
MAX = 2**64 - 1


class NumberOverflow(Exception):
    """The sum does not fit in 64 bits of seconds."""


def _add(a, b):
    if a + b > MAX:
        raise NumberOverflow()
    return a + b


def add_current(sec, nsec, out):
    """Add `sec` seconds and `nsec` nanoseconds (`nsec` may exceed one
    second) to `out`, a (seconds, nanoseconds) pair; return the new pair."""
    out_sec, out_nsec = out
    nsec = _add(out_nsec, nsec)
    if nsec > NANOS:
        sec = _add(sec, nsec // NANOS)
        nsec %= NANOS
    sec = _add(out_sec, sec)
    return (sec, nsec)


def total(parts):
    """Sum `(seconds, nanoseconds)` parts."""
    out = (0, 0)
    for sec, nsec in parts:
        out = add_current(sec, nsec, out)
    return out
