from src.picking import first, last


def test_first():
    assert first([3, 4]) == 3
    assert first([], "x") == "x"


def test_last():
    assert last([0, 1, 2, 3]) == 3
    assert last(iter(range(5))) == 4
    assert last({"a": 1, "b": 2}) == "b"
    assert last([], "some default") == "some default"


def test_last_empty_raises():
    try:
        last(iter([]))
    except ValueError:
        pass
    else:
        raise AssertionError("expected ValueError")


def test_reversed_is_none():
    class ReversedIsNone:
        __reversed__ = None

        def __iter__(self):
            return iter([1, 2])

    assert last(ReversedIsNone()) == 2
