"""Pick single items out of iterables."""

from collections import deque
from collections.abc import Sequence

_marker = object()


def first(iterable, default=_marker):
    """Return the first item of `iterable`, or `default` if it is empty."""
    for item in iterable:
        return item
    if default is _marker:
        raise ValueError("first() was called on an empty iterable and no default was given")
    return default


def last(iterable, default=_marker):
    """Return the last item of `iterable`, or `default` if it is empty.

    Without a default, an empty iterable raises ValueError.
    """
    try:
        if isinstance(iterable, Sequence):
            return iterable[-1]
        # reversed() avoids a full pass when the object supports it
        if getattr(iterable, "__reversed__", None):
            return next(reversed(iterable))
        return deque(iterable, maxlen=1)[-1]
    except (IndexError, TypeError, StopIteration):
        if default is _marker:
            raise ValueError("last() was called on an empty iterable and no default was given")
        return default
