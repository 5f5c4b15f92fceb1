"""The budget envelope of a task, checked before every model call and tool batch.

A budget that runs out raises :class:`~agentci.errors.BudgetExhausted`, which ends the
task with status ``budget_exhausted`` (exit 3) and keeps the work done so far.
"""

from __future__ import annotations

import time

from agentci.errors import BudgetExhausted
from agentci.loop.state import State
from agentci.recipe.schema import Budget


class BudgetTracker:
    """Enforces one task's :class:`Budget` against its :class:`State`."""

    def __init__(self, budget: Budget, *, clock: type[time.monotonic] | None = None) -> None:
        self.budget = budget
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def before_model_call(self, state: State) -> None:
        """Raise if the next model call may not start."""
        b = self.budget
        if state.turns >= b.max_turns:
            raise BudgetExhausted("max_turns", state.turns, b.max_turns)
        if b.max_tokens is not None and state.usage.total_tokens >= b.max_tokens:
            raise BudgetExhausted("max_tokens", state.usage.total_tokens, b.max_tokens)
        cost = state.usage.cost_usd or 0.0
        if b.max_cost_usd is not None and cost >= b.max_cost_usd:
            raise BudgetExhausted("max_cost_usd", cost, b.max_cost_usd)
        self.check_wall()

    def check_wall(self) -> None:
        """Raise if the wall-clock budget is spent."""
        cap = self.budget.max_wall_seconds
        if cap is not None and self.elapsed() >= cap:
            raise BudgetExhausted("max_wall_seconds", round(self.elapsed(), 1), cap)

    def tool_calls_allowed(self, state: State, wanted: int) -> int:
        """How many of ``wanted`` tool calls may still start."""
        cap = self.budget.max_tool_calls
        if cap is None:
            return wanted
        return max(0, min(wanted, cap - state.tool_calls))
