import unittest

from src.running import running_max, running_min

DATA = [4, 3, 7, 0, 8, 1, 6, 2, 9, 5]


class RunningTest(unittest.TestCase):
    def test_running_min(self):
        self.assertEqual(list(running_min(DATA, 3)), [4, 3, 3, 0, 0, 0, 1, 1, 2, 2])

    def test_running_max(self):
        self.assertEqual(list(running_max(DATA, 3)), [4, 4, 7, 7, 8, 8, 8, 6, 9, 9])

    def test_min_stability(self):
        # min(x, y) returns x when x == y
        self.assertEqual([type(v) for v in running_min([0, 0.0, 0.0], 2)], [int, int, float])

    def test_max_stability(self):
        # max(x, y) returns x when x == y
        self.assertEqual([type(v) for v in running_max([0, 0.0, 0.0], 2)], [int, int, float])
