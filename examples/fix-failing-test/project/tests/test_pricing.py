import pytest

from shop.pricing import apply_discount, total


def test_no_discount_keeps_the_price():
    assert apply_discount(19.99, 0) == 19.99


def test_quarter_off():
    assert apply_discount(200, 25) == 150.0


def test_total_applies_the_discount_to_each_price():
    assert total([10, 20], percent=10) == 27.0


def test_discount_over_100_percent_is_refused():
    with pytest.raises(ValueError):
        apply_discount(10, 120)
