import unittest

from src.filesize import naturalrate, naturalsize


class FilesizeTest(unittest.TestCase):
    def test_naturalsize(self):
        self.assertEqual(naturalsize(300), "300 Bytes")
        self.assertEqual(naturalsize(3000000), "3.0 MB")
        self.assertEqual(naturalsize(3000, binary=True), "2.9 KiB")

    def test_naturalsize_rollover(self):
        self.assertEqual(naturalsize(999999), "1.0 MB")
        self.assertEqual(naturalsize(1024**2 - 1, binary=True), "1.0 MiB")

    def test_naturalrate(self):
        self.assertEqual(naturalrate(300), "300 B/s")
        self.assertEqual(naturalrate(3000000), "3.0 MB/s")

    def test_naturalrate_rollover(self):
        self.assertEqual(naturalrate(999999), "1.0 MB/s")
        self.assertEqual(naturalrate(999999999), "1.0 GB/s")
