"""Context events: what agentci did to keep the conversation going: compressing the history,
refusing a request that would overflow the context window, and catching a model that is stuck.
"""

from __future__ import annotations

from typing import Literal

from agentci.events.envelope import EventBase

CompressionStatus = Literal[
    "compressed",
    "failed_inflated",
    "failed_empty",
    "failed_truncated",
    "failed_error",
    "content_truncated",
]


class ChatCompressed(EventBase):
    """The history reached ``context.compress_at`` of the context window and was compressed
    (docs/context.md). ``status``: ``compressed`` (older turns replaced by a state snapshot),
    ``failed_inflated`` (the snapshot was not smaller: the history is kept, and later
    compressions only drop old turns), ``failed_empty`` (the model gave no snapshot: the same),
    ``failed_truncated`` (the snapshot was cut at the output limit: the same, a cut snapshot never
    replaces the history), ``failed_error`` (the summary call failed for good or was blocked: the
    same, and the task goes on; ``reason`` says why),
    ``content_truncated`` (the oldest turns were dropped). Tokens are estimates of the prompt
    before and after (docs/context.md)."""

    type: Literal["chat_compressed"] = "chat_compressed"
    tokens_before: int
    tokens_after: int
    status: CompressionStatus = "compressed"
    reason: str | None = None


class ContextWindowWillOverflow(EventBase):
    """The next request would not fit the model's context window, even after compression: it
    is not sent, and the task ends ``budget_exhausted`` (limit ``context_window``)."""

    type: Literal["context_window_will_overflow"] = "context_window_will_overflow"
    estimated_tokens: int
    limit: int


class LoopDetectedEvent(EventBase):
    """The model is stuck. ``kind`` names the detector: ``tool_call`` (a cycle of 1-5 tool
    calls repeated five times), ``content`` (the streamed answer repeats the same text),
    ``model_judged`` (the model-judged check), ``no_progress`` (two verify attempts failed the
    same way: the task ends ``verify_failed``). ``recovering`` is true the first time (the
    model is nudged once); the next time the task stops with ``loop_detected``."""

    type: Literal["loop_detected"] = "loop_detected"
    kind: str
    detail: str
    recovering: bool = False
