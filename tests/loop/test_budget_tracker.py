"""The budget tracker on its own: worst-case checks, the output clamp, the wall-clock guard."""

from __future__ import annotations

import asyncio

import pytest

from agentci.errors import BudgetExhausted
from agentci.loop.budget import MIN_OUTPUT_TOKENS, BudgetTracker, RunTotals
from agentci.loop.state import State
from agentci.providers.base import Message, ModelRequest, TextPart
from agentci.recipe.budget_config import Budget, TotalBudget
from agentci.recipe.model_config import ModelConfig, Pricing
from agentci.usage import Usage


def request(text: str = "x" * 400, max_output: int | None = None) -> ModelRequest:
    return ModelRequest(
        model="gemini-2.5-flash",
        system="",
        messages=[Message("user", [TextPart(text)])],
        tools=[],
        max_output_tokens=max_output,
    )


def state_after(prompt: int, output: int, cost: float | None = None) -> State:
    state = State(messages=[Message("user", [TextPart("x" * 400)])])
    state.add_call(Usage(prompt_tokens=prompt, output_tokens=output).as_call(cost))
    state.turns = 1
    return state


def priced(pricing: Pricing) -> ModelConfig:
    return ModelConfig(name="gemini-2.5-flash", pricing=pricing)


def test_the_output_limit_is_lowered_to_what_the_token_budget_can_pay():
    tracker = BudgetTracker(Budget(max_tokens=10_000))
    state = State(messages=request().messages)
    req = tracker.before_call(state, request())
    prompt = tracker.estimate_prompt_tokens(state, request())
    assert req.max_output_tokens == 10_000 - prompt


def test_a_smaller_configured_limit_is_kept():
    tracker = BudgetTracker(Budget(max_tokens=10_000))
    req = tracker.before_call(State(), request(max_output=500))
    assert req.max_output_tokens == 500


def test_no_budget_leaves_the_request_alone():
    req = request()
    assert BudgetTracker(Budget()).before_call(State(), req) is req


def test_a_call_that_cannot_fit_is_not_made():
    tracker = BudgetTracker(Budget(max_tokens=2_000))
    state = State(messages=request().messages)
    tracker.record_call(state, request(), Usage(prompt_tokens=1_500, output_tokens=100))
    with pytest.raises(BudgetExhausted) as info:
        tracker.before_call(state, request())
    assert (info.value.limit, info.value.used, info.value.cap) == ("max_tokens", 1_600, 2_000)


def test_the_known_prompt_size_drives_the_estimate():
    tracker = BudgetTracker(Budget())
    state = State(messages=[Message("user", [TextPart("x" * 400)])])
    tracker.record_call(state, request(), Usage(prompt_tokens=50_000, output_tokens=10))
    state.messages.append(Message("user", [TextPart("y" * 4_000)]))
    assert 51_000 <= tracker.estimate_prompt_tokens(state, request()) < 51_200


def test_the_cost_budget_clamps_the_answer_with_the_output_price():
    pricing = Pricing(input_per_mtok=1.0, output_per_mtok=10.0)
    tracker = BudgetTracker(Budget(max_cost_usd=0.01), model=priced(pricing))
    state = State(messages=request().messages)
    req = tracker.before_call(state, request())
    prompt = tracker.estimate_prompt_tokens(state, request())
    worst = prompt * 1e-6 + req.max_output_tokens * 10e-6
    assert worst <= 0.01 < worst + 20e-6


def test_the_cost_budget_refuses_a_call_it_cannot_afford():
    pricing = Pricing(input_per_mtok=1.0, output_per_mtok=10.0)
    tracker = BudgetTracker(Budget(max_cost_usd=0.01), model=priced(pricing))
    state = state_after(prompt=1000, output=10, cost=0.01 - MIN_OUTPUT_TOKENS * 10e-6 / 2)
    with pytest.raises(BudgetExhausted) as info:
        tracker.before_call(state, request())
    assert info.value.limit == "max_cost_usd"


def test_usage_over_the_cap_is_caught_after_the_call():
    tracker = BudgetTracker(Budget(max_tokens=1_000))
    with pytest.raises(BudgetExhausted, match="exceeded by the last call"):
        tracker.after_turn(state_after(prompt=900, output=200))


def test_the_run_total_counts_earlier_tasks():
    totals = RunTotals(TotalBudget(max_tokens=5_000))
    totals.add(Usage(prompt_tokens=4_900))
    with pytest.raises(BudgetExhausted) as info:
        BudgetTracker(Budget(), total=totals).before_call(State(), request())
    assert info.value.limit == "total.max_tokens"


def test_the_wall_clock_cancels_running_work():
    async def scenario() -> bool:
        cancelled = False

        async def work() -> None:
            nonlocal cancelled
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled = True
                raise

        tracker = BudgetTracker(Budget(max_wall_seconds=0.05))
        with pytest.raises(BudgetExhausted) as info:
            await tracker.guard_wall(asyncio.ensure_future(work()))
        assert info.value.limit == "max_wall_seconds"
        return cancelled

    assert asyncio.run(scenario())


def test_the_wall_guard_passes_results_and_errors_through():
    async def fails() -> None:
        raise ValueError("boom")

    async def scenario() -> None:
        tracker = BudgetTracker(Budget(max_wall_seconds=30))
        with pytest.raises(ValueError):
            await tracker.guard_wall(asyncio.ensure_future(fails()))
        await tracker.guard_wall(asyncio.ensure_future(asyncio.sleep(0)))

    asyncio.run(scenario())
