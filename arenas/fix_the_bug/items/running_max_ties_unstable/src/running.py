"""Running minimum and maximum over a sliding window."""

from collections import deque


def _windowed_min(iterator, maxlen):
    window = deque()  # (index, value) pairs, values never decreasing
    for index, value in enumerate(iterator):
        if window and window[0][0] == index - maxlen:
            window.popleft()  # the oldest value left the window
        # Keep equal values: the earliest of them must stay the minimum.
        while window and window[-1][1] > value:
            window.pop()
        window.append((index, value))
        yield window[0][1]


def _windowed_max(iterator, maxlen):
    window = deque()  # (index, value) pairs, values never increasing
    for index, value in enumerate(iterator):
        if window and window[0][0] == index - maxlen:
            window.popleft()  # the oldest value left the window
        # Keep equal values: the earliest of them must stay the maximum.
        while window and window[-1][1] <= value:
            window.pop()
        window.append((index, value))
        yield window[0][1]


def running_min(iterable, maxlen):
    """Yield the smallest of the last `maxlen` values, for each value."""
    if maxlen <= 0:
        raise ValueError("Window size should be positive")
    return _windowed_min(iter(iterable), maxlen)


def running_max(iterable, maxlen):
    """Yield the largest of the last `maxlen` values, for each value."""
    if maxlen <= 0:
        raise ValueError("Window size should be positive")
    return _windowed_max(iter(iterable), maxlen)
