"""The meter between a task's Chat and its budget: every model call is checked and counted.

The Chat calls :meth:`Meter.before_call` before each request it sends (retries included), and
:meth:`Meter.after_call` when that request has ended, however it ended, with the last usage
the API reported for it. So three attempts of one turn — a cut stream that had reported
usage, an empty reply, a good answer — are three model calls, their tokens and cost summed,
and the budget is checked before each (see :mod:`agentci.usage`).
"""

from __future__ import annotations

from collections.abc import Callable

from agentci.context.tokens import estimate_fixed, estimate_messages
from agentci.events import types as ev
from agentci.loop.budget import BudgetTracker
from agentci.loop.state import State
from agentci.providers.base import ModelRequest
from agentci.usage import Usage

#: ``price(model, usage)``: the cost in USD of a call's usage, None when the model is unpriced.
PriceFn = Callable[[str, Usage], float | None]


class Meter:
    """Checks each call against the budget and counts it in the State.

    A meter with ``side`` set (:meth:`beside`) meters the calls made beside the conversation
    (compression's summary, the loop judge): each is checked against every budget with its own
    prompt size and counted in the task's usage, but its prompt is never taken for the
    conversation's (the next turn's estimate is unchanged)."""

    def __init__(
        self, state: State, budget: BudgetTracker, price: PriceFn, *, side: bool = False
    ) -> None:
        self.state = state
        self.budget = budget
        self.price = price
        self.side = side

    def beside(self) -> Meter:
        """The meter of calls made beside this conversation (same state, budget and prices)."""
        return Meter(self.state, self.budget, self.price, side=True)

    def before_call(self, request: ModelRequest) -> ModelRequest:
        """The request to send (its output limits clamped); raises BudgetExhausted."""
        if not self.side:
            return self.budget.before_call(self.state, request)
        size = estimate_fixed(request.system, request.tools) + estimate_messages(request.messages)
        return self.budget.before_call(self.state, request, prompt_tokens=size)

    async def wait_for_room(self, request: ModelRequest) -> None:
        """Wait while ``budget.total`` has room for the request only once other tasks' calls
        in flight have ended (``agentci batch``; see :mod:`agentci.loop.totals`)."""
        await self.budget.wait_for_room(self.state, request)

    def after_call(self, request: ModelRequest, reported: Usage | None) -> ev.Usage:
        """Count one call of ``request`` (``reported``: what the API said it used, if it
        said anything) and describe it as a ``usage`` event."""
        used = reported or Usage()
        cost = self.price(request.model, used)
        self.budget.record_call(self.state, request, used.as_call(cost), side=self.side)
        return ev.Usage(
            model=request.model,
            prompt_tokens=used.prompt_tokens,
            output_tokens=used.output_tokens,
            thoughts_tokens=used.thoughts_tokens,
            cached_tokens=used.cached_tokens,
            cost_usd=cost,
            estimated=used.estimated_calls > 0,
            totals=self.state.usage.model_copy(),
        )
