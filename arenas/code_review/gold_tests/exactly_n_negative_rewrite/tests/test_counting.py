from itertools import repeat
from operator import not_

from src.counting import exactly_n, ilen


def test_ilen():
    assert ilen(iter("abc")) == 3


def test_true():
    assert exactly_n([True, False, True], 2)
    assert exactly_n([False, False], 0)
    assert exactly_n(range(100), 10, lambda x: x < 10)
    assert exactly_n(repeat(True, 100), 100)
    assert exactly_n(repeat(False, 100), 100, predicate=not_)


def test_false():
    assert not exactly_n([True, True, False], 1)
    assert not exactly_n(repeat(True), 100)
    assert not exactly_n([True], 0)
    assert not exactly_n([], 1)


def test_negative_n():
    assert not exactly_n([True], -1)
    assert not exactly_n([True], -10)
    assert not exactly_n([], -10)
