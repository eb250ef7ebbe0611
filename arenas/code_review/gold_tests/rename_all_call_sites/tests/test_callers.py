"""Gold test (GREEN, a refactor): every caller of the renamed pricing
function still computes the same totals, before the change and after."""
import unittest

from shop.checkout import checkout
from shop.invoice import invoice_line

CART = [{"price": 10.0, "quantity": 2}, {"price": 2.5, "quantity": 4}]


class CallersTest(unittest.TestCase):
    def test_checkout_adds_the_regions_tax(self):
        self.assertEqual(checkout(CART, "EU"), {"total": 36.0, "currency": "EUR"})
        self.assertEqual(checkout(CART, "US"), {"total": 30.0, "currency": "EUR"})

    def test_invoice_line_shows_the_total(self):
        self.assertEqual(invoice_line(CART), "Total due: 30.00")


if __name__ == "__main__":
    unittest.main()
