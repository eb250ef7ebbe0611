import unittest

from cache.ttl import TtlCache


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class TtlCacheTest(unittest.TestCase):
    def test_missing_key(self):
        self.assertIsNone(TtlCache(10).get("nope"))

    def test_fresh_entry_is_returned(self):
        clock = Clock()
        cache = TtlCache(10, clock)
        cache.put("k", "v")
        clock.now += 5
        self.assertEqual(cache.get("k"), "v")

    def test_expired_entry_is_gone(self):
        clock = Clock()
        cache = TtlCache(10, clock)
        cache.put("k", "v")
        clock.now += 11
        self.assertIsNone(cache.get("k"))
