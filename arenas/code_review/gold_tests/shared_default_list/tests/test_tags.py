import unittest

from blog.tags import add_tag, tag_article


class TagTest(unittest.TestCase):
    def test_no_duplicates(self):
        self.assertEqual(add_tag("a", ["a"]), ["a"])

    def test_articles_do_not_share_tags(self):
        first = tag_article({}, "rust")
        second = tag_article({}, "python")
        self.assertEqual(first["tags"], ["rust"])
        self.assertEqual(second["tags"], ["python"])
