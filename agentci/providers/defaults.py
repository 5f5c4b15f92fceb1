"""What a provider knows about its models before calling them: price, window, output limit.

Each provider module keeps its own table (Gemini's in :mod:`agentci.providers.gemini_tables`)
and answers :class:`ModelDefaults` for a model name through its registry entry
(:mod:`agentci.providers.registry`). The recipe overrides any of them (``model.pricing``,
``model.context_window``, ``model.max_output_tokens``, ``model.thinking_budget``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: The window of a model no table knows (what current large models accept).
DEFAULT_CONTEXT_WINDOW = 1_048_576
#: The output limit (thinking included) of a model no table knows, when the recipe sets none.
DEFAULT_MAX_OUTPUT_TOKENS = 65_536


@dataclass(frozen=True)
class Price:
    """USD per million tokens. ``long`` holds the prices of a call whose prompt is above
    ``long_above`` tokens (a long-context tier, for the whole call). ``cache_storage``: an
    explicit context cache's storage, USD per million tokens per hour (None: not billed)."""

    input: float
    output: float
    cached: float | None = None
    thinking: float | None = None
    long: Price | None = None
    long_above: int | None = None
    cache_storage: float | None = None


@dataclass(frozen=True)
class ModelDefaults:
    """What a provider says about one of its models.

    ``price``: None when unknown (a cost budget then needs ``model.pricing``);
    ``free``: the model costs nothing unless the recipe gives a price (replay, scripted);
    ``thinks_by_default``: the model thinks unless told not to, so a call clamped by the budget
    also limits its thinking."""

    price: Price | None = None
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    thinks_by_default: bool = False
    free: bool = False


def longest_prefix(name: str, table: Mapping[str, T]) -> T | None:
    """The entry of the longest key ``name`` starts with (``gemini-2.5-flash-001`` →
    ``gemini-2.5-flash``, and ``gemini-2.5-flash-lite`` keeps its own), or None."""
    best = max((k for k in table if name.startswith(k)), key=len, default=None)
    return table[best] if best is not None else None
