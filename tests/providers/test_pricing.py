"""Pricing table and cost arithmetic."""

from __future__ import annotations

import pytest

from agentci.providers.gemini_tables import PRICES
from agentci.providers.pricing import cost_for, has_price, price_for
from agentci.recipe.model_config import Pricing
from agentci.usage import Usage


def test_longest_prefix_wins() -> None:
    assert price_for("gemini-2.5-flash-lite-001") == PRICES["gemini-2.5-flash-lite"]
    assert price_for("models/gemini-2.5-flash-preview-09-2025") == PRICES["gemini-2.5-flash"]
    assert price_for("gpt-5") is None


def test_cost_counts_cached_and_thinking() -> None:
    u = Usage(
        prompt_tokens=1_000_000,
        output_tokens=100_000,
        thoughts_tokens=200_000,
        cached_tokens=400_000,
    )
    # flash: 600k input * 0.30 + 400k cached * 0.03 + 300k output/thinking * 2.50
    assert cost_for("gemini-2.5-flash", u) == pytest.approx(0.18 + 0.012 + 0.75)


def test_long_context_tier() -> None:
    u = Usage(prompt_tokens=300_000, output_tokens=0)
    assert cost_for("gemini-2.5-pro", u) == pytest.approx(0.75)
    assert cost_for("gemini-2.5-pro", Usage(prompt_tokens=100_000)) == pytest.approx(0.125)


def test_override_and_unknown() -> None:
    over = Pricing(input_per_mtok=1, output_per_mtok=2, thinking_per_mtok=3)
    u = Usage(
        prompt_tokens=1_000_000,
        output_tokens=1_000_000,
        thoughts_tokens=1_000_000,
        cached_tokens=500_000,
    )
    assert cost_for("my-model", u, over) == pytest.approx(1 + 2 + 3)
    assert cost_for("my-model", u) is None
    assert not has_price("my-model") and has_price("my-model", over)
    assert has_price("replay:c.jsonl") and cost_for("replay:c.jsonl", u) == 0.0
