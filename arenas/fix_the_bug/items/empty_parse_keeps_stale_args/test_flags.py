import unittest

from flags import FlagError, FlagSet


class FlagSetTest(unittest.TestCase):
    def test_flags_and_args(self):
        f = FlagSet()
        f.string("out", "a.out")
        f.parse(["--out=bin", "x", "--", "--y"])
        self.assertEqual(f.lookup("out"), "bin")
        self.assertEqual(f.args(), ["x", "--y"])

    def test_unknown_flag(self):
        with self.assertRaises(FlagError):
            FlagSet().parse(["--nope=1"])

    def test_reparse_with_no_arguments_clears_args(self):
        f = FlagSet()
        f.parse(["a", "b"])
        f.parse([])
        self.assertEqual(f.args(), [])
