"""The budget envelope of a task, enforced before every model call, after it, and on the clock.

The unit is one model call: one request to the API, retries included (see
:mod:`agentci.usage`). Limits (``budget:`` in the recipe, per task; ``budget.total`` over all
tasks of a run):

* ``max_turns`` — turns (a turn is one model answer, however many attempts it took).
* ``max_tokens`` — prompt + output + thinking tokens, summed over every call.
* ``max_cost_usd`` — the same usage priced per model with :mod:`agentci.providers.pricing`.
* ``max_wall_seconds`` — the task's wall clock; a model call or tool still running when it
  runs out is cancelled (:meth:`BudgetTracker.guard_wall`).
* ``max_tool_calls`` — tool calls past the cap are not started.
* ``tool_timeout_seconds`` — per tool call (the tool is killed and the model is told).

**Before** each model call — each attempt, retries included — the tracker estimates the worst
case of that call: the prompt it will send (the last reported prompt size plus what was added
to the history since, estimated as :mod:`agentci.context.tokens` says) plus the largest answer it may produce.
If the remaining token or cost budget cannot pay for the prompt and :data:`MIN_OUTPUT_TOKENS`
of answer, the call is not made. Otherwise the call's ``max_output_tokens`` is lowered so that
a maximal answer (thinking included) fits what is left, and ``thinking_budget`` to at most
half of it, so that a clamped call leaves room for an answer.

What is guaranteed: no call starts that the estimate says cannot fit. The estimate of the
prompt is not exact (it is measured once the API reports it), and a provider may not honour
the output limit, so the real usage is checked again **after** each turn: a task can go over
a token or cost cap by at most the estimate's error on one call; it then ends at once.

A budget that runs out raises :class:`~agentci.errors.BudgetExhausted`: status
``budget_exhausted``, exit 3, and the work done so far (the patch) is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

from agentci.context.tokens import PromptSize
from agentci.errors import BudgetExhausted
from agentci.loop.ledger import Hold, Ledger
from agentci.loop.state import State
from agentci.loop.totals import Reservation, RunTotals
from agentci.providers.base import ModelRequest
from agentci.providers.pricing import cost_for
from agentci.providers.registry import defaults_for
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig
from agentci.usage import Usage

#: A call that could not even produce this many tokens of answer is not worth making.
MIN_OUTPUT_TOKENS = 256


class BudgetTracker:
    """Enforces one task's :class:`Budget` (and the run's :class:`RunTotals`) on its State."""

    def __init__(
        self,
        budget: Budget,
        *,
        total: RunTotals | None = None,
        model: ModelConfig | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self.budget = budget
        self.ledger = ledger  # budget.daily_usd / per_workflow_usd (agentci.loop.ledger)
        self._ledger_hold: Hold | None = None
        self.total = total
        self.model = model  # its prices (``pricing_for``), per model name
        self.started = time.monotonic()
        self.prompt = PromptSize()  # the next request's size (agentci.context.tokens)
        self._held: Reservation | None = None  # budget.total: the worst case of this call

    # ------------------------------------------------------------------ clock

    def elapsed(self) -> float:
        """Seconds since the task started."""
        return time.monotonic() - self.started

    def wall_limits(self) -> list[tuple[str, float, float]]:
        """``(limit, seconds left, cap)`` of each wall-clock limit that applies."""
        out = []
        cap = self.budget.max_wall_seconds
        if cap is not None:
            out.append(("max_wall_seconds", cap - self.elapsed(), cap))
        if self.total is not None and self.total.caps.max_wall_seconds is not None:
            run_cap = self.total.caps.max_wall_seconds
            left = run_cap - (time.monotonic() - self.total.started)
            out.append(("total.max_wall_seconds", left, run_cap))
        return out

    def check_wall(self) -> None:
        """Raise if a wall-clock budget is spent."""
        for limit, left, cap in self.wall_limits():
            if left <= 0:
                raise BudgetExhausted(limit, round(cap - left, 1), cap)

    async def guard_wall(self, work: asyncio.Future[None]) -> None:
        """Await ``work``; if a wall-clock budget runs out first, cancel it (the running model
        call or tool with it) and raise :class:`BudgetExhausted`. Other outcomes of ``work``
        (its result, its exception, its cancellation by a signal) pass through unchanged."""
        limits = self.wall_limits()
        if not limits:
            await work
            return
        limit, left, cap = min(limits, key=lambda x: x[1])
        try:
            done, _ = await asyncio.wait({work}, timeout=max(left, 0.0))
        except asyncio.CancelledError:
            work.cancel()
            raise
        if work in done:
            work.result()
            return
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await work
        now_left = dict((name, left) for name, left, _ in self.wall_limits()).get(limit, 0.0)
        raise BudgetExhausted(limit, round(cap - now_left, 1), cap, "the running work was stopped")

    # ------------------------------------------------------------------ tokens and cost

    def _token_caps(self, state: State) -> list[tuple[str, float, float]]:
        used = state.usage.total_tokens
        caps: list[tuple[str, float, float]] = []
        if self.budget.max_tokens is not None:
            caps.append(("max_tokens", used, self.budget.max_tokens))
        if self.total is not None and self.total.caps.max_tokens is not None:
            run_used = self.total.used.total_tokens + self.total.reserved_tokens
            caps.append(("total.max_tokens", run_used, self.total.caps.max_tokens))
        return caps

    def _cost_caps(self, state: State) -> list[tuple[str, float, float]]:
        used = state.usage.cost_usd or 0.0
        caps = []
        if self.budget.max_cost_usd is not None:
            caps.append(("max_cost_usd", used, self.budget.max_cost_usd))
        if self.total is not None and self.total.caps.max_cost_usd is not None:
            cap = self.total.caps.max_cost_usd
            run_used = round((self.total.used.cost_usd or 0.0) + self.total.reserved_cost, 8)
            caps.append(("total.max_cost_usd", run_used, cap))
        if self.ledger is not None:
            caps += self.ledger.caps()
        return caps

    def estimate_prompt_tokens(self, state: State, request: ModelRequest) -> int:
        """The next call's prompt size: the last reported size plus what was added to the
        history since (the first call: everything; see :mod:`agentci.context.tokens`)."""
        return self.prompt.next(request.system, request.tools, state.messages)

    def _prices(self, model: str, prompt: int) -> tuple[float, float] | None:
        """(cost of the prompt, cost of one output token) in USD, or None when unpriced."""
        override = self.model.pricing_for(model) if self.model is not None else None
        prompt_cost = cost_for(model, Usage(prompt_tokens=prompt), override)
        if prompt_cost is None:
            return None
        big = 1_000_000
        out = cost_for(model, Usage(prompt_tokens=prompt, output_tokens=big), override) or 0.0
        think = cost_for(model, Usage(prompt_tokens=prompt, thoughts_tokens=big), override) or 0.0
        return prompt_cost, max(out - prompt_cost, think - prompt_cost, 0.0) / big

    def before_turn(self, state: State) -> None:
        """Raise if another turn may not start (``max_turns``, the wall clock)."""
        b = self.budget
        if state.turns >= b.max_turns:
            raise BudgetExhausted("max_turns", state.turns, b.max_turns)
        self.check_wall()

    def before_call(
        self, state: State, request: ModelRequest, *, prompt_tokens: int | None = None
    ) -> ModelRequest:
        """Raise if the next model call (an attempt, retries included) may not start; else
        return ``request`` with its output limit, and its thinking budget, lowered so that
        the call's worst case fits every token and cost budget (see the module docstring).
        ``prompt_tokens``: the size of a call made beside the conversation (its own estimate).
        With ``budget.total``, the worst case is reserved until the call is recorded."""
        self.release()
        sent, tokens, cost = self._admit(state, request, prompt_tokens)
        if self.ledger is not None:
            self._ledger_hold = self.ledger.reserve(cost)
        if self.total is not None:
            self._held = self.total.reserve(tokens, cost)
        return sent

    async def wait_for_room(self, state: State, request: ModelRequest) -> None:
        """With ``budget.total``: wait while the next call fits only once the calls other
        tasks have in flight have ended (:mod:`agentci.loop.totals`)."""
        if self.total is None:
            return
        self.release()
        while self.total.in_flight:
            try:
                self._admit(state, request, None)
                return
            except BudgetExhausted as err:
                if not err.limit.startswith("total."):
                    raise
            await self.total.wait()

    def release(self) -> None:
        """Give back this task's reservation on ``budget.total`` (if it holds one)."""
        ledger_hold, self._ledger_hold = self._ledger_hold, None
        if ledger_hold is not None and self.ledger is not None:
            self.ledger.settle(ledger_hold, 0.0)  # the call never ended with a usage report
        held, self._held = self._held, None
        if held is not None and self.total is not None:
            self.total.release(held)

    def _admit(
        self, state: State, request: ModelRequest, prompt_tokens: int | None
    ) -> tuple[ModelRequest, int, float]:
        """The request to send, its worst case in tokens and in USD; or BudgetExhausted."""
        self.check_wall()
        prompt = (
            self.estimate_prompt_tokens(state, request) if prompt_tokens is None else prompt_tokens
        )
        configured = request.max_output_tokens or defaults_for(request.model).max_output_tokens
        allowed = configured
        for limit, used, cap in self._token_caps(state):
            room = int(cap - used) - prompt
            if room < MIN_OUTPUT_TOKENS:
                raise BudgetExhausted(
                    limit, used, cap, f"the next call needs about {prompt + MIN_OUTPUT_TOKENS:,}"
                )
            allowed = min(allowed, room)
        cost_caps = self._cost_caps(state)
        prices = self._prices(request.model, prompt) if cost_caps else None
        for limit, used, cap in cost_caps:
            if prices is None:
                continue  # unpriced models are refused before the run (launch preflight)
            prompt_cost, per_token = prices
            worst_min = prompt_cost + per_token * MIN_OUTPUT_TOKENS
            if used + worst_min > cap:
                raise BudgetExhausted(
                    limit, used, cap, f"the next call may cost up to ${worst_min:.4f}"
                )
            if per_token > 0:
                allowed = min(allowed, int((cap - used - prompt_cost) / per_token))
        cost = prices[0] + prices[1] * allowed if prices is not None else 0.0
        if allowed < configured:
            request = replace(
                request,
                max_output_tokens=allowed,
                thinking_budget=clamp_thinking(request.model, request.thinking_budget, allowed),
            )
        return request, prompt + allowed, cost

    def record_call(
        self, state: State, request: ModelRequest, call: Usage, *, side: bool = False
    ) -> None:
        """Count one finished call of ``request`` in the task's usage (and, with
        ``budget.total``, turn its reservation into its real usage). A call of the conversation
        also corrects the estimate of the next prompt with the size the API reported, when it
        sent the history as it is (a nudged retry sends a changed copy); a call made beside the
        conversation (``side``: compression's summary, the loop judge) never does."""
        if side:
            state.usage += call
        else:
            state.add_call(call)
        self._count_in_total(call)
        sent = len(request.messages)
        if side or not sent or sent > len(state.messages):
            return
        last, ours = request.messages[-1], state.messages[sent - 1]
        if last is ours or last == ours:
            self.prompt.reported(call.prompt_tokens, sent)

    def _count_in_total(self, call: Usage) -> None:
        """``budget.total`` and the ledger: the call's reservation is replaced by what it
        used."""
        if self.ledger is not None:
            hold, self._ledger_hold = self._ledger_hold, None
            self.ledger.settle(hold, call.cost_usd or 0.0)
        self.release()
        if self.total is not None:
            self.total.add(call)

    def after_turn(self, state: State) -> None:
        """Raise if a budget is now exceeded (see the module docstring for why it can be)."""
        self.release()  # a probe's reservation (``Session``): only real usage counts here
        for limit, used, cap in self._token_caps(state) + self._cost_caps(state):
            if used > cap:
                raise BudgetExhausted(limit, used, cap, "exceeded by the last call")
        self.check_wall()

    # ------------------------------------------------------------------ tools

    def tool_calls_allowed(self, state: State, wanted: int) -> int:
        """How many of ``wanted`` tool calls may still start."""
        cap = self.budget.max_tool_calls
        if cap is None:
            return wanted
        return max(0, min(wanted, cap - state.tool_calls))


def clamp_thinking(model: str, thinking_budget: int | None, allowed: int) -> int | None:
    """The thinking budget of a call whose answer may be at most ``allowed`` tokens: at most
    half of it, so that thinking cannot use the whole answer (0, thinking off, is kept; an unset
    budget is left unset for models that do not think by default: the provider's table says)."""
    if thinking_budget == 0:
        return 0
    if thinking_budget is None and not defaults_for(model).thinks_by_default:
        return None
    half = max(allowed // 2, 1)
    if thinking_budget is None or thinking_budget < 0:
        return half
    return min(thinking_budget, half)
