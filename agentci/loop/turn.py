"""One turn: one model answer streamed into typed events, and the model's message.

A turn may take several model calls (retries). A :class:`~agentci.events.model_events.Retry` from the
chat layer discards the parts gathered so far: no partial text or half-streamed call survives
a retry. What each call used is not discarded: the chat's meter counts every call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from agentci.events import types as ev
from agentci.finish import Finish
from agentci.loop.chat import CallMeter, Chat
from agentci.providers.base import (
    Message,
    ModelChunk,
    ModelRequest,
    Part,
    TextPart,
    ToolCallPart,
)
from agentci.tools.arg_depth import bounded


class TextWatch(Protocol):
    """Reads the answer's text as it streams (loop detection); a hit stops the answer."""

    def feed_text(self, text: str) -> Any | None: ...

    def discard_text(self) -> None: ...


class Turn:
    """Runs one turn; afterwards ``message`` and ``finish_reason`` are set, and ``stopped``
    when the ``watch`` cut the answer off (what it returned)."""

    def __init__(
        self,
        chat: Chat,
        request: ModelRequest,
        number: int,
        meter: CallMeter | None = None,
        watch: TextWatch | None = None,
    ) -> None:
        self.chat = chat
        self.request = request
        self.number = number
        self.meter = meter
        self.watch = watch
        self.stopped: Any | None = None
        self.parts: list[Part] = []
        self.finish: Finish | None = None
        self.finish_reason: str | None = None
        self.model_version: str | None = None
        self._pending: list[ev.Event] = []

    @property
    def message(self) -> Message:
        return Message(role="model", parts=self.parts)

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    def _reset(self) -> None:
        self.parts = []
        self.finish = None
        self.finish_reason = None
        self._pending = []
        self.stopped = None
        if self.watch is not None:
            self.watch.discard_text()

    async def run(self) -> AsyncIterator[ev.Event]:
        """Stream the call. Text and tool-call events are released when the call has ended
        cleanly, so a retried attempt never shows up as if it had happened; the last call's
        ``usage`` event follows them (a retried call's comes before its ``retry``)."""
        usage: ev.Event | None = None
        try:
            stop = (lambda: self.stopped is not None) if self.watch is not None else None
            async for item in self.chat.stream(self.request, self.meter, stop=stop):
                if isinstance(item, ModelChunk):
                    self._take(item)
                    continue
                if usage is not None:
                    yield usage
                    usage = None
                if isinstance(item, ev.Usage):
                    usage = item
                elif isinstance(item, ev.Retry):
                    self._reset()
                    yield item
                else:
                    yield item
        except Exception:  # the call failed for good (blocked, provider failed): still shown
            if usage is not None:
                yield usage
            raise
        yield ev.ModelInfo(model=self.chat.model, model_version=self.model_version)
        for event in self._pending:
            yield event
        self._pending = []
        if usage is not None:
            yield usage

    def _take(self, chunk: ModelChunk) -> None:
        if chunk.finish is not None or chunk.finish_reason is not None:
            self.finish, self.finish_reason = chunk.finish, chunk.finish_reason
        if chunk.model_version:
            self.model_version = chunk.model_version
        for part in chunk.parts:
            if isinstance(part, TextPart):
                if part.text:
                    self._pend_text(part)
                    if self.watch is not None and not part.thought and self.stopped is None:
                        self.stopped = self.watch.feed_text(part.text)
                self._append_text(part)
            elif isinstance(part, ToolCallPart):
                part.args = bounded(part.args)  # a 600-level answer is refused, not a crash
                self.parts.append(part)
                self._pending.append(
                    ev.ToolCallRequest(call_id=part.id, name=part.name, args=part.args)
                )

    def _pend_text(self, part: TextPart) -> None:
        """One content (or thought) event per run of streamed text, not one per chunk."""
        kind = ev.Thought if part.thought else ev.Content
        last = self._pending[-1] if self._pending else None
        if isinstance(last, kind):
            last.text += part.text
        else:
            self._pending.append(kind(text=part.text))

    def _append_text(self, part: TextPart) -> None:
        """Merge streamed text into one part per run of text (signatures are kept)."""
        last = self.parts[-1] if self.parts else None
        if isinstance(last, TextPart) and last.thought == part.thought and last.signature is None:
            last.text += part.text
            last.signature = part.signature
        else:
            self.parts.append(TextPart(part.text, part.thought, part.signature))
