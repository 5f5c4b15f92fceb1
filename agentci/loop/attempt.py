"""One try of a model call: stream it through, hold function calls back, judge the end.

:func:`stream_attempt` yields the provider's chunks as they arrive, without their function
calls and finish reason: those come in one last chunk once the answer is known to be whole and
usable (a chunk carrying the provider's ``warning`` passes through as it is).
An answer that arrived whole but cannot be used (empty, thoughts only, no finish reason, cut in
the middle of a function call …) raises :class:`Unusable` with the nudge the corrective retry
appends (:func:`with_nudge`); a blocked prompt or answer raises
:class:`~agentci.errors.Blocked`, an output limit spent on thinking
:class:`~agentci.errors.BudgetExhausted`, and a stream that sends nothing or stalls past the
``retry`` timeouts :class:`~agentci.providers.base.TransientProviderError`. Retrying and
falling back are :class:`~agentci.loop.chat.Chat`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, replace

from agentci.errors import Blocked, BudgetExhausted
from agentci.finish import BLOCKED, COMPLETE, CUT, Finish
from agentci.providers.base import (
    Message,
    ModelChunk,
    ModelRequest,
    Provider,
    TextPart,
    ToolCallPart,
    TransientProviderError,
)
from agentci.recipe.model_config import ModelConfig, RetryConfig
from agentci.usage import Usage

NUDGES: dict[str, str] = {
    "truncated": (
        "Your previous answer reached the output token limit in the middle of a function call, "
        "so the call was not executed. Make smaller steps (for example shorter edits) and call "
        "the tool again."
    ),
    "default": (
        "Your previous answer was empty or malformed and could not be used. Answer with text, "
        "or call one of the available tools with valid arguments."
    ),
}


class Unusable(Exception):
    """An answer that arrived whole but cannot be used (retried with a nudge)."""

    def __init__(self, reason: str, nudge: str) -> None:
        self.reason = reason
        self.nudge = nudge
        super().__init__(reason)


@dataclass
class Reported:
    """What the API reported during one attempt."""

    usage: Usage | None = None


async def stream_attempt(
    provider: Provider, request: ModelRequest, config: ModelConfig, seen: Reported
) -> AsyncGenerator[ModelChunk, None]:
    """One try: stream text through, hold calls back, judge the end. The last usage the
    API reported is kept in ``seen`` (a cut stream may have reported some)."""
    held: list[ToolCallPart] = []
    finish: Finish | None = None
    said: str | None = None  # the API's own words for the finish
    last_version: str | None = None
    has_text = False
    async for chunk in _timed(provider.stream(request), config.retry):
        if chunk.warning is not None:  # the provider's own news, not part of the answer
            yield chunk
            continue
        if chunk.usage is not None:
            seen.usage = chunk.usage
        if chunk.block_reason:
            raise Blocked(f"the prompt was blocked ({chunk.block_reason})")
        if chunk.finish is not None or chunk.finish_reason is not None:
            finish, said = chunk.finish, chunk.finish_reason or chunk.finish
        last_version = chunk.model_version or last_version
        calls = [p for p in chunk.parts if isinstance(p, ToolCallPart)]
        held.extend(calls)
        has_text = has_text or any(
            isinstance(p, TextPart) and not p.thought and p.text.strip() for p in chunk.parts
        )
        if calls:
            chunk = replace(chunk, parts=[p for p in chunk.parts if p not in calls])
        chunk = replace(chunk, finish=None, finish_reason=None)
        if chunk.parts or chunk.usage is not None or chunk.model_version:
            yield chunk
    if finish in BLOCKED:
        raise Blocked(f"the model's output was blocked ({said})")
    if finish in CUT and held:
        raise Unusable(f"{said} in the middle of a function call", NUDGES["truncated"])
    if finish in CUT and not has_text:
        raise _thought_out(seen.usage, config)
    if finish not in COMPLETE and finish not in CUT:
        reason = _finish_words(finish, said)
        raise Unusable(reason, NUDGES["default"])
    if not held and not has_text:
        raise Unusable("empty reply (no text, no function call)", NUDGES["default"])
    yield ModelChunk(
        parts=list(held), finish=finish, finish_reason=said, model_version=last_version
    )


def _thought_out(usage: Usage | None, config: ModelConfig) -> BudgetExhausted:
    """The whole output limit went to thinking (no text, no call): another try would
    spend the same, so the task ends ``budget_exhausted`` (``max_output_tokens``)."""
    used = (usage.output_tokens + usage.thoughts_tokens) if usage is not None else 0
    cap = config.max_output_tokens or used
    return BudgetExhausted(
        "max_output_tokens", used, cap,
        "the model spent the whole output limit thinking, with no answer and no tool call; "
        "raise model.max_output_tokens or lower model.thinking_budget",
    )  # fmt: skip


async def _timed(
    stream: AsyncIterator[ModelChunk], retry: RetryConfig
) -> AsyncIterator[ModelChunk]:
    """The provider's stream with a first-chunk and an inactivity timeout."""
    first = True
    it = aiter(stream)
    try:
        while True:
            timeout = retry.request_timeout_seconds if first else retry.stream_idle_timeout_seconds
            try:
                chunk = await asyncio.wait_for(anext(it), timeout)
            except StopAsyncIteration:
                return
            except asyncio.TimeoutError as e:
                what = "sent nothing" if first else "stalled"
                raise TransientProviderError(f"model stream {what} for {timeout:g}s") from e
            first = False
            yield chunk
    finally:
        aclose = getattr(it, "aclose", None)
        if aclose is not None:
            await aclose()


def _finish_words(finish: Finish | None, said: str | None) -> str:
    """How an unusable end is named in events: agentci's word, and the API's when it differs."""
    if finish is None and said is None:
        return "the stream ended without a finish reason"
    if finish is None or said is None or said == finish:
        return f"finish reason {finish or said}"
    return f"finish reason {finish} ({said})"


def with_nudge(request: ModelRequest, nudge: str) -> ModelRequest:
    """A copy of ``request`` whose last user message ends with ``nudge`` (the original is kept)."""
    messages = list(request.messages)
    if messages and messages[-1].role == "user":
        last = messages[-1]
        messages[-1] = Message("user", [*last.parts, TextPart(nudge)])
    else:
        messages.append(Message("user", [TextPart(nudge)]))
    return replace(request, messages=messages)
