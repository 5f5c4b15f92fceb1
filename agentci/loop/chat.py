"""The provider call of one turn, with retries, corrective retries and model fallback.

:meth:`Chat.stream` yields the provider's :class:`ModelChunk` objects and a few events. The
protocol with the Turn:

* A :class:`~agentci.events.model_events.Retry` event means: **everything streamed so far in this
  call is discarded**, the call starts again (after ``delay_seconds``).
* Text and thoughts stream through as they arrive. Function calls are held back until the
  answer is known to be complete and usable; they come in the last chunk, together with the
  finish reason. So a cut stream, a malformed answer or a MAX_TOKENS in the middle of a call
  never leads to a tool being executed (or executed twice).
* :class:`~agentci.events.model_events.InvalidStream` is yielded when an answer was unusable
  (empty, thoughts only, no finish reason, MALFORMED_FUNCTION_CALL, ...); the call is then
  retried (a Retry event follows) with a nudge appended to the last user message of a *copy*
  of the request, at most :data:`MAX_CORRECTIVE_RETRIES` times, then ProviderFailed.
* Each request sent is checked and counted by the ``meter`` (budget before, usage after), and
  its ``usage`` event is yielded when it ends, retried or not.
* A ``warning`` event is yielded when the provider had to switch to another way of calling the
  API (:class:`~agentci.providers.base.ProviderDegraded`); the call is retried at once. A
  provider's chunk carrying a ``warning`` (it changed something on its own and goes on, e.g. an
  explicit context cache it could not create) is yielded as that ``warning`` event.
* :class:`~agentci.events.model_events.ModelFallback` is yielded when the chat switches to the next
  model of ``model.fallback`` (quota exhausted, or retries spent); ``Chat.model`` stays on it.

Errors raised: :class:`~agentci.errors.Blocked` (content or prompt blocked),
:class:`~agentci.errors.BudgetExhausted` (``max_output_tokens``: thoughts only, cut at the output
limit — retrying would bill the same again), :class:`~agentci.errors.ProviderFailed` (auth, model
name, bad request: exit 6) and :class:`~agentci.errors.ProviderUnavailable` (retries spent on
transient faults, or a quota without a fallback: exit 75, the run may be repeated later).
Transient faults (429, 408, 5xx, connection errors, timeouts, cut or malformed
streams) are retried with exponential backoff and jitter (tenacity's ``wait_exponential_jitter``);
a server-suggested delay is honoured up to ``retry.max_delay_seconds``.

One try of the call (holding function calls back, judging the end) is
:func:`agentci.loop.attempt.stream_attempt`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any, Protocol

from tenacity import RetryCallState, wait_exponential_jitter

from agentci.errors import (
    Blocked,
    BudgetExhausted,
    NoUsableAnswer,
    ProviderFailed,
    ProviderUnavailable,
)
from agentci.events.model_events import InvalidStream, ModelFallback, Retry
from agentci.events.types import Event
from agentci.events.warning_events import WarningEvent
from agentci.loop.attempt import Reported, Unusable, stream_attempt, with_nudge
from agentci.providers.base import (
    ModelChunk,
    ModelRequest,
    Provider,
    ProviderDegraded,
    TransientProviderError,
)
from agentci.providers.faults import QuotaExhausted
from agentci.recipe.model_config import ModelConfig
from agentci.usage import Usage

MAX_CORRECTIVE_RETRIES = 2


class CallMeter(Protocol):
    """Checks and counts each request (:class:`agentci.loop.meter.Meter`)."""

    def before_call(self, request: ModelRequest) -> ModelRequest: ...

    async def wait_for_room(self, request: ModelRequest) -> None: ...

    def after_call(self, request: ModelRequest, reported: Usage | None) -> Event: ...


class Chat:
    """Calls the provider for the current model (sticky after a fallback)."""

    def __init__(
        self,
        provider: Provider,
        model: ModelConfig,
        *,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.config = model
        self.model = model.name
        self._fallbacks = model.fallback_names()
        self._sleep = sleep
        retry = model.retry
        self._wait = wait_exponential_jitter(
            initial=retry.initial_delay_seconds,
            max=retry.max_delay_seconds,
            jitter=retry.initial_delay_seconds,
        )

    # ---------------------------------------------------------------- policy

    def backoff(self, attempt: int, suggested: float | None = None) -> float:
        """Delay before retry ``attempt + 1``: the server's suggestion (capped) or backoff."""
        cap = self.config.retry.max_delay_seconds
        if suggested is not None:
            return min(max(suggested, 0.0), cap)
        state = RetryCallState(None, None, (), {})  # type: ignore[arg-type]
        state.attempt_number = attempt
        return min(self._wait(state), cap)

    def _next_model(self, reason: str) -> ModelFallback | None:
        if not self._fallbacks:
            return None
        old, self.model = self.model, self._fallbacks.pop(0)
        return ModelFallback(from_model=old, to_model=self.model, reason=reason)

    def _for_model(self, req: ModelRequest) -> ModelRequest:
        """The request for the current model; unset settings come from the recipe."""
        cfg = self.config
        return replace(
            req,
            model=self.model,
            temperature=cfg.temperature if req.temperature is None else req.temperature,
            max_output_tokens=(
                cfg.max_output_tokens if req.max_output_tokens is None else req.max_output_tokens
            ),
            thinking_budget=(
                cfg.thinking_budget if req.thinking_budget is None else req.thinking_budget
            ),
        )

    # ---------------------------------------------------------------- the call

    async def stream(
        self,
        request: ModelRequest,
        meter: CallMeter | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> AsyncIterator[ModelChunk | Event]:
        """Stream one model call for ``request`` with the current model (see module doc).

        ``meter`` sees every request sent: ``before_call`` may clamp or refuse it (raising),
        ``after_call`` counts it, with what the API reported, and gives its ``usage`` event.
        ``stop`` is asked after each chunk: when true, the stream is closed there and the
        call ends as it is (no finish reason, function calls held back are dropped)."""
        attempts = self.config.retry.attempts
        attempt = 0
        corrective = 0
        req = request
        while True:
            attempt += 1
            sent = self._for_model(req)
            if meter is not None:
                await meter.wait_for_room(sent)  # then check and reserve, with no await between
                sent = meter.before_call(sent)
            seen = Reported()
            failure: Exception | None = None
            attempt_stream = stream_attempt(self.provider, sent, self.config, seen)
            try:
                async for item in attempt_stream:
                    if isinstance(item, ModelChunk) and item.warning is not None:
                        kind, message = item.warning
                        yield WarningEvent(kind=kind, message=message)
                        continue
                    yield item
                    if stop is not None and stop():
                        await attempt_stream.aclose()
                        break
            except (
                QuotaExhausted,
                TransientProviderError,
                Unusable,
                Blocked,
                ProviderFailed,
                BudgetExhausted,
            ) as e:
                failure = e
            except BaseException:  # cancelled or abandoned: still counted, no event
                if meter is not None:
                    meter.after_call(sent, seen.usage)
                raise
            if meter is not None:
                yield meter.after_call(sent, seen.usage)
            if failure is None:
                return
            if isinstance(failure, (Blocked, ProviderFailed, BudgetExhausted)):
                raise failure
            if isinstance(failure, ProviderDegraded):
                yield WarningEvent(kind=failure.kind, message=str(failure))
                yield Retry(attempt=attempt + 1, reason=failure.kind, delay_seconds=0.0)
                attempt -= 1  # the provider's own switch, not a failed try
                continue
            if isinstance(failure, QuotaExhausted):
                switch = self._next_model(f"quota exhausted: {failure}")
                if switch is None:
                    raise ProviderUnavailable(
                        f"{self.model}: quota exhausted: {failure}"
                    ) from failure
                yield Retry(attempt=attempt + 1, reason=str(failure), delay_seconds=0.0)
                yield switch
                attempt = 0
            elif isinstance(failure, TransientProviderError):
                if attempt >= attempts:
                    switch = self._next_model(f"{attempt} failed attempts: {failure}")
                    if switch is None:
                        raise ProviderUnavailable(
                            f"{self.model}: giving up after {attempt} attempts: {failure}"
                        ) from failure
                    yield Retry(attempt=attempt + 1, reason=str(failure), delay_seconds=0.0)
                    yield switch
                    attempt = 0
                    continue
                delay = self.backoff(attempt, failure.retry_after)
                yield Retry(attempt=attempt + 1, reason=str(failure), delay_seconds=round(delay, 3))
                await self._sleep(delay)
            else:
                assert isinstance(failure, Unusable)
                corrective += 1
                yield InvalidStream(reason=failure.reason, attempt=corrective)
                if corrective > MAX_CORRECTIVE_RETRIES:
                    raise NoUsableAnswer(
                        f"{self.model}: no usable answer after {corrective} tries: {failure.reason}"
                    ) from failure
                yield Retry(
                    attempt=attempt + 1,
                    reason=f"invalid stream: {failure.reason}",
                    delay_seconds=0.0,
                )
                req = with_nudge(request, failure.nudge)
