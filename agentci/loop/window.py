"""Keeping a task's conversation inside the model's context window, before every request.

Before each model turn :meth:`ContextKeeper.before_request`:

1. masks old tool output beyond ``context.mask_tool_output_after_tokens``
   (:mod:`agentci.context.masking`);
2. estimates the next request (:mod:`agentci.context.tokens`); when it reaches
   ``context.compress_at`` of the window (:mod:`agentci.providers.windows`), runs the
   ``pre_compress`` hooks (they observe) and compresses the history (:mod:`agentci.context.compression`): a state snapshot written by the model, or —
   once a snapshot failed (not smaller, empty, cut at the output limit, or the call failed or
   was blocked: the history is kept and the task goes on), or when even the older part alone would
   not fit the window — the oldest turns dropped. Each attempt is a ``chat_compressed``
   event with its status and the estimated tokens before and after;
3. when the request still cannot fit the window, drops older turns again while it can, and
   then emits ``context_window_will_overflow`` and raises
   :class:`~agentci.errors.ContextWindowFull`: the request is never sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from agentci.context.compression import (
    Summary,
    drop_oldest,
    snapshot_request,
    split_point,
    with_snapshot,
)
from agentci.context.masking import OutputMasker
from agentci.context.tokens import estimate_fixed, estimate_messages
from agentci.errors import ContextWindowFull
from agentci.events import types as ev
from agentci.hooks.loop_stages import LoopHooks, reported
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.meter import Meter
from agentci.loop.state import State
from agentci.providers.base import Message, ToolSpec
from agentci.providers.windows import context_window_for
from agentci.recipe.schema import Context

if TYPE_CHECKING:
    from agentci.tools.truncation import SavedOutputs


class Conversation(Protocol):
    """What the keeper reads and rewrites of a session (:class:`~agentci.loop.session.Session`)."""

    @property
    def chat(self) -> Chat:
        """The task's chat (its current model; the snapshot call goes through it)."""

    @property
    def budget(self) -> BudgetTracker:
        """The task's budget (its prompt estimate is kept in step with each rewrite)."""

    @property
    def meter(self) -> Meter:
        """The conversation's meter (the snapshot call is metered beside it)."""

    @property
    def state(self) -> State:
        """The conversation's state; its messages are what the keeper rewrites."""

    @property
    def system(self) -> str:
        """The system prompt (counted in every request)."""

    @property
    def tools(self) -> list[ToolSpec]:
        """The tools' declarations (counted in every request)."""

    @property
    def hooks(self) -> LoopHooks:
        """The loop's hook stages (``pre_compress``)."""


class ContextKeeper:
    """Masking, compression and the overflow guard of one task's conversation."""

    def __init__(
        self, config: Context, window_override: int | None, outputs: SavedOutputs | None
    ) -> None:
        self.config = config
        self.window_override = window_override
        self.masker = OutputMasker(config.mask_tool_output_after_tokens, outputs)
        self.summary_failed = False  # after a failed snapshot, only drop old turns
        self._note: Message | None = None  # the note of the last drop, while it leads
        self._kept = ""  # the text that note keeps
        self._origin: str | None = None  # the session's first message, before any rewrite

    def window(self, model: str) -> int:
        """The context window of ``model`` (the recipe's override first)."""
        return context_window_for(model, self.window_override)

    @staticmethod
    def _size(session: Conversation) -> int:
        return session.budget.prompt.next(session.system, session.tools, session.state.messages)

    def _rewrite(self, session: Conversation, messages: list[Message]) -> int:
        session.state.messages[:] = messages
        session.budget.prompt.rewritten()
        self.masker.rewritten()
        self.masker.mask(session.state.messages)
        return self._size(session)

    def _remember_origin(self, messages: list[Message]) -> str:
        """The session's first message as it was (the task and its project context), taken
        before the first rewrite and kept beside every snapshot."""
        if self._origin is None:
            self._origin = messages[0].text
        return self._origin

    def _drop(self, session: Conversation, split: int) -> int:
        """Drop the first ``split`` messages; the note keeps what the session began with (the
        same text again when the first message is the note of an earlier drop)."""
        messages = session.state.messages
        self._remember_origin(messages)
        first = self._kept if messages[0] is self._note else messages[0].text
        new = drop_oldest(messages, split, first)
        self._note, self._kept = new[0], first
        return self._rewrite(session, new)

    async def before_request(self, session: Conversation) -> AsyncIterator[ev.Event]:
        """Mask, compress and guard before the next request of ``session`` (module doc)."""
        prompt = session.budget.prompt
        for index, saved in self.masker.mask(session.state.messages):
            if index < prompt.counted:
                prompt.shrink(saved)
        window = self.window(session.chat.model)
        size = self._size(session)
        if size < self.config.compress_at * window:
            return
        hooks = await session.hooks.pre_compress(
            turn=session.state.turns, tokens=size, window=window
        )
        for event in reported(hooks):
            yield event
        messages = session.state.messages
        split = split_point(messages, self.config.keep_recent)
        older = messages[:split]
        fixed = estimate_fixed(session.system, session.tools)
        if split < 2 or fixed + estimate_messages(messages[split:]) > window:
            split = 0  # nothing worth summarising, or what is kept alone cannot fit
        if split and not self.summary_failed and fixed + estimate_messages(older) < window:
            request = snapshot_request(session.chat.model, older)
            meter = session.meter.beside()  # its own prompt size, not the conversation's
            chat = session.chat
            summary = Summary(lambda r: chat.stream(r, meter), request)
            async for event in summary:
                yield event
            status: ev.CompressionStatus = "failed_empty"
            after = size
            if summary.failure:
                status = "failed_error"
            elif summary.cut:
                status = "failed_truncated"  # a cut snapshot would lose the rest of the state
            elif summary.text:
                origin = self._remember_origin(messages)
                new = with_snapshot(summary.text, messages[split:], origin)
                if estimate_messages(new) < estimate_messages(messages):
                    status, after = "compressed", self._rewrite(session, new)
                else:
                    status, after = "failed_inflated", fixed + estimate_messages(new)
            if status != "compressed":
                self.summary_failed = True
            yield ev.ChatCompressed(
                tokens_before=size, tokens_after=after, status=status, reason=summary.failure
            )
            size = self._size(session)
        elif split:
            after = self._drop(session, split)
            yield ev.ChatCompressed(
                tokens_before=size, tokens_after=after, status="content_truncated"
            )
            size = after
        while size > window:
            split = split_point(session.state.messages, self.config.keep_recent)
            if split < 2:
                break  # nothing left to drop but the note and the newest turn
            before = size
            size = self._drop(session, split)
            yield ev.ChatCompressed(
                tokens_before=before, tokens_after=size, status="content_truncated"
            )
        if size > window:
            yield ev.ContextWindowWillOverflow(estimated_tokens=size, limit=window)
            raise ContextWindowFull(size, window)
