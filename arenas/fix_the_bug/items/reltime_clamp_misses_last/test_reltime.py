import unittest

from reltime import custom_rel_time

MAGS = [(1, "now", 1), (60, "{n} seconds {label}", 1), (3600, "{n} minutes {label}", 60)]


class RelTimeTest(unittest.TestCase):
    def test_within_the_table(self):
        self.assertEqual(custom_rel_time(0, 0, "ago", "from now", MAGS), "now")
        self.assertEqual(custom_rel_time(0, 30, "ago", "from now", MAGS), "30 seconds ago")
        self.assertEqual(custom_rel_time(120, 0, "ago", "from now", MAGS), "2 minutes from now")

    def test_past_the_end_uses_the_last_magnitude(self):
        self.assertEqual(custom_rel_time(0, 7200, "ago", "from now", MAGS), "120 minutes ago")
