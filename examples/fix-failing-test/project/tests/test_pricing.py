import unittest

from shop.pricing import apply_discount, total


class ApplyDiscountTest(unittest.TestCase):
    def test_no_discount_keeps_the_price(self):
        self.assertEqual(apply_discount(19.99, 0), 19.99)

    def test_quarter_off(self):
        self.assertEqual(apply_discount(200, 25), 150.0)

    def test_discount_over_100_percent_is_refused(self):
        with self.assertRaises(ValueError):
            apply_discount(10, 120)


class TotalTest(unittest.TestCase):
    def test_total_applies_the_discount_to_each_price(self):
        self.assertEqual(total([10, 20], percent=10), 27.0)
