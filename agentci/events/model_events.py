"""Model call events: a turn's model call, what the model streamed (text, thoughts, usage) and
what happened to the call (retries, fallback, unusable or blocked answers).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentci.events.envelope import EventBase
from agentci.finish import Finish
from agentci.usage import Usage as UsageTotals


class TurnStarted(EventBase):
    """A model call is about to be made (``turn`` counts from 1)."""

    type: Literal["turn_started"] = "turn_started"
    turn: int


class ModelInfo(EventBase):
    """The model that actually answers (after fallback), and its version if known."""

    type: Literal["model_info"] = "model_info"
    model: str
    model_version: str | None = None


class Content(EventBase):
    """Text the model wrote."""

    type: Literal["content"] = "content"
    text: str


class Thought(EventBase):
    """A thought summary the model streamed (thinking models)."""

    type: Literal["thought"] = "thought"
    text: str


class Retry(EventBase):
    """A model call is retried from the start of the turn; partial output was discarded."""

    type: Literal["retry"] = "retry"
    attempt: int
    reason: str
    delay_seconds: float


class ModelFallback(EventBase):
    """The task switched to a fallback model, which it keeps for the rest of the task."""

    type: Literal["model_fallback"] = "model_fallback"
    from_model: str
    to_model: str
    reason: str


class AgentExecutionBlocked(EventBase):
    """The model's output was blocked (SAFETY, prompt blocked, ...)."""

    type: Literal["agent_execution_blocked"] = "agent_execution_blocked"
    reason: str


class InvalidStream(EventBase):
    """The model's answer was unusable (malformed call, empty reply, no finish reason)."""

    type: Literal["invalid_stream"] = "invalid_stream"
    reason: str
    attempt: int = 1


class Usage(EventBase):
    """Token usage of one model call, with the running totals of the task. ``estimated``: the
    server reported no usage, the counts are agentci's estimate (see :mod:`agentci.usage`)."""

    type: Literal["usage"] = "usage"
    model: str
    prompt_tokens: int = 0
    output_tokens: int = 0
    thoughts_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    estimated: bool = False
    totals: UsageTotals = Field(default_factory=UsageTotals)


class TurnFinished(EventBase):
    """A model call ended: ``finish`` in agentci's words (stop, tool_calls, max_tokens,
    max_tokens_in_thinking, safety, recitation, malformed_call, other), ``finish_reason`` as the
    API said it, ``tool_calls`` it asked for."""

    type: Literal["turn_finished"] = "turn_finished"
    turn: int
    finish: Finish | None = None
    finish_reason: str | None = None
    tool_calls: int = 0
