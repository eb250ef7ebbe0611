"""Counting helpers for iterables."""

from itertools import islice


def ilen(iterable):
    """Return the number of items in `iterable`, consuming it."""
    count = 0
    for _ in iterable:
        count += 1
    return count


def exactly_n(iterable, n, predicate=bool):
    """Return True if exactly `n` items of `iterable` satisfy `predicate`.

    The iterable is advanced until n + 1 matching items are seen, so an
    infinite iterable with more than n matches still returns.
    """
    iterator = filter(predicate, iterable)
    if n <= 0:
        if n < 0:
            return False
        for _ in iterator:
            return False
        return True

    # Skip the first n - 1 matches; the next one is the n-th.
    iterator = islice(iterator, n - 1, None)
    for _ in iterator:
        # An (n + 1)-th match means too many.
        for _ in iterator:
            return False
        return True
    return False
