"""Gold test (RED): a page holds at most `size` records (R2), whether its
numbers start at 0 or at 1, so it passes on the parent (0-based pages)
and fails on the change (every page one record too many)."""
import unittest

from src.pagination import page


class PageSizeTest(unittest.TestCase):
    def test_no_page_holds_more_than_size_records(self):
        records = list(range(10))
        for number in range(1, 5):
            self.assertLessEqual(len(page(records, number, 3)), 3, f"page {number}")


if __name__ == "__main__":
    unittest.main()
