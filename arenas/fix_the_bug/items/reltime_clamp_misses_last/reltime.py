"""Format the time between two moments for people."""

from bisect import bisect_right


def custom_rel_time(a, b, albl, blbl, magnitudes):
    """Format the seconds between `a` and `b` with the first magnitude
    `(below, format, div_by)` whose `below` is above the difference, or
    with the last one when none is. The label of the earlier time is used
    for `{label}`; `{n}` is the difference divided by `div_by`."""
    label = albl
    diff = b - a
    if a > b:
        label = blbl
        diff = a - b

    n = bisect_right([m[0] for m in magnitudes], diff)

    # A table need not reach infinity: past its end, use the last entry.
    if n > len(magnitudes):
        n = len(magnitudes) - 1
    _, fmt, div_by = magnitudes[n]
    return fmt.format(label=label, n=diff // div_by)
