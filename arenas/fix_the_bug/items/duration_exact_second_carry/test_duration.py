import unittest

from duration import NumberOverflow, total


class DurationTest(unittest.TestCase):
    def test_carries_nanoseconds(self):
        self.assertEqual(total([(1, 500_000_000), (0, 700_000_000)]), (2, 200_000_000))

    def test_an_exact_second_is_carried(self):
        self.assertEqual(total([(0, 500_000_000), (0, 500_000_000)]), (1, 0))
        self.assertEqual(total([(0, 1_000_000_000)]), (1, 0))

    def test_overflow_is_an_error(self):
        with self.assertRaises(NumberOverflow):
            total([(2**64 - 1, 0), (1, 0)])
