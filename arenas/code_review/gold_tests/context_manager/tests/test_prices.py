"""Gold test (GREEN, a fix): the CSV file is closed even when a row is
bad and load_prices raises; before the change it was left open."""
import builtins
import os
import tempfile
import unittest
from unittest import mock

from inventory.prices import load_prices


class LoadPricesTest(unittest.TestCase):
    def setUp(self):
        self.opened = []
        real_open = builtins.open

        def tracking_open(*args, **kwargs):
            f = real_open(*args, **kwargs)
            self.opened.append(f)
            return f

        self.patch = mock.patch("builtins.open", tracking_open)
        self.patch.start()
        self.addCleanup(self.patch.stop)
        fd, self.path = tempfile.mkstemp(suffix=".csv")
        os.close(fd)
        self.addCleanup(os.remove, self.path)

    def write(self, text):
        with builtins.open(self.path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_prices_are_read(self):
        self.write("sku,cents\nA1,150\nB2,99\n")
        self.assertEqual(load_prices(self.path), {"A1": 150, "B2": 99})
        self.assertTrue(all(f.closed for f in self.opened))

    def test_the_file_is_closed_when_a_row_is_bad(self):
        self.write("sku,cents\nA1,150\nB2,not-a-number\n")
        with self.assertRaises(ValueError):
            load_prices(self.path)
        self.assertTrue(self.opened)
        self.assertTrue(all(f.closed for f in self.opened), "the CSV file was left open")


if __name__ == "__main__":
    unittest.main()
