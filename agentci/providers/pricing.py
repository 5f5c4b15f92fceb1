"""The cost of a call's usage, from the serving provider's price table or the recipe's.

Prices live with each provider (Gemini's in :mod:`agentci.providers.gemini_tables`), reached
through :func:`agentci.providers.registry.defaults_for`. Prices change: a recipe can override
them (``model.pricing``), and with ``budget.max_cost_usd`` set a model without a known price is
refused before the run (see :func:`has_price`).

How a call is priced: the prompt's cached tokens (part of the prompt count) at the cached
price, thinking tokens at the thinking price (the output price unless one is given), and the
long-context tier's prices for the whole call when the prompt is above its threshold; an
explicit context cache's written tokens at the input price and its storage (token-hours) at
the storage price (see :mod:`agentci.usage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentci.providers.defaults import Price
from agentci.providers.registry import defaults_for

if TYPE_CHECKING:
    from agentci.recipe.model_config import Pricing
    from agentci.usage import Usage


def _from_override(model: str, p: Pricing) -> Price:
    storage = p.cache_storage_per_mtok_hour
    if storage is None:  # the table's storage price, when it has one
        table = defaults_for(model).price
        storage = table.cache_storage if table is not None else None
    return Price(
        p.input_per_mtok,
        p.output_per_mtok,
        p.cached_per_mtok,
        p.thinking_per_mtok,
        cache_storage=storage,
    )


def price_for(model: str, override: Pricing | None = None) -> Price | None:
    """The price of ``model`` (the recipe's override first), or None when unknown."""
    if override is not None:
        return _from_override(model, override)
    return defaults_for(model).price


def has_price(model: str, override: Pricing | None = None) -> bool:
    """Whether a cost can be computed for ``model`` (replay/scripted models cost nothing)."""
    return defaults_for(model).free or price_for(model, override) is not None


def cost_for(model: str, usage: Usage, override: Pricing | None = None) -> float | None:
    """Cost in USD of one call's usage; None when the model's price is unknown.

    Replayed and scripted models cost 0 unless the recipe gives a price (then they cost what
    the recorded usage would have cost live, which also lets cost budgets be tested offline).
    """
    if override is None and defaults_for(model).free:
        return 0.0
    price = price_for(model, override)
    if price is None:
        return None
    long_above = price.long_above
    if price.long is not None and long_above is not None and usage.prompt_tokens > long_above:
        price = price.long
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_price = price.input if price.cached is None else price.cached
    thinking_price = price.output if price.thinking is None else price.thinking
    total = (
        (usage.prompt_tokens - cached) * price.input
        + cached * cached_price
        + usage.output_tokens * price.output
        + usage.thoughts_tokens * thinking_price
        + usage.cache_write_tokens * price.input
        + usage.cache_storage_token_hours * (price.cache_storage or 0.0)
    )
    return round(total / 1_000_000, 8)
