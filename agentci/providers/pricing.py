"""Prices of Gemini models, and the cost of a call's usage.

USD per million tokens, Gemini Developer API, paid tier, as published at the time of writing.
Prices change: a recipe can override them (``model.pricing``), and with ``budget.max_cost_usd``
set a model without a known price is refused before the run (see :func:`has_price`).

How Gemini counts: ``promptTokenCount`` includes the cached tokens
(``cachedContentTokenCount``), which are billed at the cached price; thinking tokens
(``thoughtsTokenCount``) are billed as output unless a thinking price is given. Models with a
long-context tier (prompts above 200k tokens) switch to that tier's prices for the whole call.

A model name matches the longest table entry it starts with, so ``gemini-2.5-flash-001`` costs
what ``gemini-2.5-flash`` costs and ``gemini-2.5-flash-lite`` keeps its own price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentci.recipe.schema import Pricing
    from agentci.usage import Usage


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cached: float | None = None
    thinking: float | None = None
    long: Price | None = None  # prices above LONG_CONTEXT_TOKENS prompt tokens


LONG_CONTEXT_TOKENS = 200_000

PRICES: dict[str, Price] = {
    "gemini-3-pro": Price(2.00, 12.00, 0.20, long=Price(4.00, 18.00, 0.40)),
    "gemini-3-flash": Price(0.50, 3.00, 0.05),
    "gemini-2.5-pro": Price(1.25, 10.00, 0.125, long=Price(2.50, 15.00, 0.25)),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.01),
    "gemini-2.0-flash": Price(0.10, 0.40, 0.025),
    "gemini-2.0-flash-lite": Price(0.075, 0.30),
}


def _from_override(p: Pricing) -> Price:
    return Price(p.input_per_mtok, p.output_per_mtok, p.cached_per_mtok, p.thinking_per_mtok)


def price_for(model: str, override: Pricing | None = None) -> Price | None:
    """The price of ``model`` (the recipe's override first), or None when unknown."""
    if override is not None:
        return _from_override(override)
    name = model.removeprefix("models/")
    best = max((k for k in PRICES if name.startswith(k)), key=len, default=None)
    return PRICES[best] if best else None


def has_price(model: str, override: Pricing | None = None) -> bool:
    """Whether a cost can be computed for ``model`` (replay/scripted models cost nothing)."""
    if model.startswith(("replay:", "scripted:")):
        return True
    return price_for(model, override) is not None


def cost_for(model: str, usage: Usage, override: Pricing | None = None) -> float | None:
    """Cost in USD of one call's usage; None when the model's price is unknown.

    Replayed and scripted models cost 0 unless the recipe gives a price (then they cost what
    the recorded usage would have cost live, which also lets cost budgets be tested offline).
    """
    if override is None and model.startswith(("replay:", "scripted:")):
        return 0.0
    price = price_for(model, override)
    if price is None:
        return None
    if price.long is not None and usage.prompt_tokens > LONG_CONTEXT_TOKENS:
        price = price.long
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_price = price.input if price.cached is None else price.cached
    thinking_price = price.output if price.thinking is None else price.thinking
    total = (
        (usage.prompt_tokens - cached) * price.input
        + cached * cached_price
        + usage.output_tokens * price.output
        + usage.thoughts_tokens * thinking_price
    )
    return round(total / 1_000_000, 8)
