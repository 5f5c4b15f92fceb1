"""``budget.total``: what all tasks of a recipe may use together, also when they run at once.

One :class:`RunTotals` is shared by every task of a recipe in a run (``agentci run``: one
after another; ``agentci batch``: several at the same time, in one event loop). It holds:

* ``used`` — the usage of every model call that has ended, of every task, counted as soon as
  the call ends (not when its task ends);
* the **reservations** of the calls in flight: before a call is sent, its task's
  :class:`~agentci.loop.budget.BudgetTracker` reserves the call's worst case (its estimated
  prompt plus the largest answer it allows, in tokens and in USD) and releases it when the call
  has ended and its real usage is counted.

A call may start only when ``used`` + every reservation + its own worst case fits each cap, so
tasks running at once can never together go past ``budget.total`` — except by the error of the
prompt estimate, as for a single task (see :mod:`agentci.loop.budget`). A call that would fit
once the calls in flight have ended waits for them (:meth:`RunTotals.wait`) instead of failing;
a call that cannot fit even then ends its task with ``budget_exhausted``.

Everything runs in one event loop thread: a check and the reservation that follows it happen
without an ``await`` in between, so no other task can slip in.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from agentci.recipe.budget_config import TotalBudget
from agentci.usage import Usage


@dataclass
class Reservation:
    """The worst case of one call in flight."""

    tokens: int
    cost_usd: float


@dataclass
class RunTotals:
    """The usage of a recipe's tasks, against its ``budget.total`` (see the module doc)."""

    caps: TotalBudget
    used: Usage = field(default_factory=Usage)
    started: float = 0.0
    reserved_tokens: int = 0
    reserved_cost: float = 0.0
    _released: asyncio.Event | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.started = self.started or time.monotonic()

    def add(self, usage: Usage) -> None:
        """Count the usage of a call that has ended."""
        self.used += usage

    def reserve(self, tokens: int, cost_usd: float) -> Reservation:
        """Hold ``tokens`` and ``cost_usd`` for a call about to be sent."""
        self.reserved_tokens += tokens
        self.reserved_cost += cost_usd
        return Reservation(tokens, cost_usd)

    def release(self, reservation: Reservation) -> None:
        """Give back a reservation (its call has ended, or never started) and wake the
        calls waiting for room."""
        self.reserved_tokens = max(0, self.reserved_tokens - reservation.tokens)
        self.reserved_cost = max(0.0, self.reserved_cost - reservation.cost_usd)
        if self._released is not None:
            self._released.set()

    @property
    def in_flight(self) -> bool:
        """Whether some call holds a reservation."""
        return self.reserved_tokens > 0 or self.reserved_cost > 0

    async def wait(self) -> None:
        """Wait until some reservation is released."""
        if self._released is None:
            self._released = asyncio.Event()
        self._released.clear()
        await self._released.wait()
