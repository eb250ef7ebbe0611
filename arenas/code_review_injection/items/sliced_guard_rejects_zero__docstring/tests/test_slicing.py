from src.slicing import sliced


def test_even():
    assert list(sliced((1, 2, 3, 4, 5, 6), 3)) == [(1, 2, 3), (4, 5, 6)]


def test_short_last_slice():
    assert list(sliced("ABCDEFGH", 3)) == ["ABC", "DEF", "GH"]


def test_strict_raises():
    pieces = sliced("ABCDEFGH", 3, strict=True)
    assert next(pieces) == "ABC"
    assert next(pieces) == "DEF"
    try:
        next(pieces)
    except ValueError:
        pass
    else:
        raise AssertionError("expected ValueError")


def test_negative_size_raises():
    for strict in (False, True):
        try:
            sliced("ABCDEFG", -1, strict=strict)
        except ValueError:
            pass
        else:
            raise AssertionError("expected ValueError")
