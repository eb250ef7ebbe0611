"""Cut sequences into slices."""

from itertools import count, takewhile


def sliced(seq, n, strict=False):
    """Yield slices of length `n` from the sequence `seq`.

    The last slice is shorter when len(seq) is not divisible by n, unless
    `strict` is true: then ValueError is raised instead of yielding it.
    A size of 0 yields nothing.
    """
    if n <= 0:
        raise ValueError("n must be at least 0")

    iterator = takewhile(len, (seq[i : i + n] for i in count(0, n)))
    if strict:

        def checked():
            for piece in iterator:
                if len(piece) != n:
                    raise ValueError("seq is not divisible by n")
                yield piece

        return checked()
    return iterator
