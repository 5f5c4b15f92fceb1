"""Prices and discounts."""


def apply_discount(price: float, percent: float) -> float:
    """The price after taking ``percent`` off, rounded to cents."""
    if not 0 <= percent <= 100:
        raise ValueError(f"a discount is between 0 and 100 percent, not {percent}")
    return round(price * percent / 100, 2)


def total(prices: list[float], percent: float = 0) -> float:
    """The sum of ``prices`` after the discount."""
    return round(sum(apply_discount(p, percent) for p in prices), 2)
