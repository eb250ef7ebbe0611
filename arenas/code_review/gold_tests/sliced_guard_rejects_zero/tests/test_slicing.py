import unittest

from src.slicing import sliced


class SlicedTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(list(sliced((1, 2, 3, 4, 5, 6), 3)), [(1, 2, 3), (4, 5, 6)])

    def test_short_last_slice(self):
        self.assertEqual(list(sliced("ABCDEFGH", 3)), ["ABC", "DEF", "GH"])

    def test_negative_size_raises(self):
        with self.assertRaises(ValueError):
            sliced("ABCDEFG", -1)

    def test_zero_size_yields_nothing(self):
        self.assertEqual(list(sliced("ABCDEFG", 0)), [])
