from src.running import running_max, running_min

DATA = [4, 3, 7, 0, 8, 1, 6, 2, 9, 5]


def test_running_min():
    assert list(running_min(DATA, 3)) == [4, 3, 3, 0, 0, 0, 1, 1, 2, 2]


def test_running_max():
    assert list(running_max(DATA, 3)) == [4, 4, 7, 7, 8, 8, 8, 6, 9, 9]


def test_bad_window():
    for func in (running_min, running_max):
        try:
            func(DATA, 0)
        except ValueError:
            pass
        else:
            raise AssertionError("expected ValueError")


def test_min_stability():
    # min(x, y) returns x when x == y
    data = [0, 0.0, 0.0]
    assert [type(v) for v in running_min(data, 2)] == [int, int, float]
