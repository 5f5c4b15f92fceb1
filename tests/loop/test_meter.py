"""The meter: one kind of meter counts every model call; a meter ``beside`` the conversation
(compression's summary, the loop judge) counts its calls in the task's usage and budget but
never takes their prompt for the conversation's."""

from __future__ import annotations

import pytest

from agentci.errors import BudgetExhausted
from agentci.loop.budget import BudgetTracker
from agentci.loop.meter import Meter
from agentci.loop.state import State
from agentci.providers.base import Message, ModelRequest, TextPart
from agentci.recipe.budget_config import Budget
from agentci.usage import Usage


def _request(messages: list[Message], system: str = "") -> ModelRequest:
    return ModelRequest(model="gemini-2.5-flash", system=system, messages=messages, tools=[])


def _unpriced(model: str, usage: Usage) -> float | None:
    return None


def test_a_call_beside_the_conversation_counts_but_leaves_its_prompt_estimate_alone():
    state = State(messages=[Message("user", [TextPart("x" * 400)])])
    tracker = BudgetTracker(Budget())
    meter = Meter(state, tracker, _unpriced)
    turn = _request(list(state.messages))
    meter.after_call(turn, Usage(prompt_tokens=1_000, output_tokens=10))
    estimate = tracker.estimate_prompt_tokens(state, turn)

    summary = _request([Message("user", [TextPart("y" * 40_000)])], system="Summarise.")
    event = meter.beside().after_call(summary, Usage(prompt_tokens=9_000, output_tokens=500))

    assert (state.usage.model_calls, state.usage.prompt_tokens, state.usage.output_tokens) == (
        2,
        10_000,
        510,
    )
    assert event.totals == state.usage and event.prompt_tokens == 9_000
    assert tracker.estimate_prompt_tokens(state, turn) == estimate
    assert state.last_prompt_tokens == 1_000


def test_a_call_beside_the_conversation_is_checked_with_its_own_prompt_size():
    state = State(messages=[Message("user", [TextPart("x" * 40)])])
    meter = Meter(state, BudgetTracker(Budget(max_tokens=5_000)), _unpriced)
    big = _request([Message("user", [TextPart("y" * 40_000)])])  # about 10,000 tokens
    assert meter.before_call(_request(list(state.messages))).max_output_tokens is not None
    with pytest.raises(BudgetExhausted) as info:
        meter.beside().before_call(big)
    assert info.value.limit == "max_tokens"
