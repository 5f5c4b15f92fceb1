"""A tiny shop: prices and discounts."""
