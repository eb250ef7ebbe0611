import time


class TtlCache:
    """A cache whose entries expire `ttl` seconds after they are stored."""

    def __init__(self, ttl, clock=time.monotonic):
        self.ttl = ttl
        self.clock = clock
        self.entries = {}

    def put(self, key, value):
        self.entries[key] = (value, self.clock() + self.ttl)

    def get(self, key):
        item = self.entries.get(key)
        if item is None:
            return None
        value, expires_at = item
        if self.clock() < expires_at:
            del self.entries[key]
            return None
        return value
