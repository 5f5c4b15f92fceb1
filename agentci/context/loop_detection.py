"""Loop detection: notice when the model is stuck, nudge it once, then stop the task.

Layers (each its own module; ``kind`` of the ``loop_detected`` event names the one that fired):

* ``tool_call`` — :mod:`agentci.context.tool_cycles`: the last ``5·k`` tool calls repeat one
  cycle of ``k`` calls (k = 1..5), arguments compared without cosmetic ones (``description``).
* ``content`` — :mod:`agentci.context.content_loops`: the streamed answer chants the same
  text (code blocks, tables and lists are not looked at). The answer is cut off as soon as it
  is seen, so a chanting model does not spend its whole output limit.
* ``model_judged`` — :mod:`agentci.context.loop_judge` (off unless the recipe turns it on):
  a model reads the recent history and gives a verdict with a confidence.
* ``no_progress`` — :mod:`agentci.verify.progress`: the same verify failures twice in a row
  end the task ``verify_failed`` early (no nudge: the failures already went back to the model).

Recovery: the first detection of any of the first three layers sends the model one recovery
message (``loop_detected`` with ``recovering: true``) and the count starts again; the next
detection ends the task with status ``loop_detected`` (exit 4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentci.context.content_loops import ContentLoops
from agentci.context.tool_cycles import ToolCycles
from agentci.events import types as ev
from agentci.policy.access import Access
from agentci.providers.base import ToolCallPart
from agentci.recipe.loops import LoopDetection

RECOVERY_NUDGE = (
    "agentci: you are repeating the same step without progress ({detail}). Do not repeat "
    "it again: try a different approach, or finish now with a summary of what you found."
)


@dataclass(frozen=True)
class LoopHit:
    """One detection: which layer, and what it saw."""

    kind: str
    detail: str


@dataclass
class LoopDetector:
    """The tool-call and content layers of one task, and the recovery state they share."""

    config: LoopDetection = field(default_factory=LoopDetection)
    tools: ToolCycles = field(default_factory=ToolCycles)
    content: ContentLoops = field(default_factory=ContentLoops)
    warned: bool = False

    def new_prompt(self) -> None:
        """A prompt (the task's, or verify's feedback) starts a new answer."""
        self.content.reset()

    def observe(
        self,
        calls: list[ToolCallPart],
        accesses: Callable[[ToolCallPart], Sequence[Access]] | None = None,
    ) -> LoopHit | None:
        """Feed one answer's tool calls, every one of them, in order; ``accesses`` says what a
        call touches (its tool's :meth:`~agentci.tools.base.Tool.accesses`)."""
        self.content.reset()  # text on both sides of a tool call is not one stream
        if not self.config.tool_calls:
            return None
        hit = None
        for call in calls:
            detail = self.tools.observe(call, accesses(call) if accesses else ())
            if detail is not None and hit is None:
                hit = LoopHit("tool_call", detail)
                self.tools.reset()
        return hit

    def feed_text(self, text: str) -> LoopHit | None:
        """Feed streamed answer text (not thoughts)."""
        if not self.config.content:
            return None
        detail = self.content.feed(text)
        if detail is None:
            return None
        self.content.reset()
        return LoopHit("content", detail)

    def discard_text(self) -> None:
        """The text streamed so far was discarded (a retried call)."""
        self.content.reset()

    def recover(self, hit: LoopHit) -> tuple[ev.LoopDetectedEvent, str | None]:
        """The event for ``hit`` and the recovery message to send, or None when the model
        was already nudged once: the task must stop."""
        event = ev.LoopDetectedEvent(kind=hit.kind, detail=hit.detail, recovering=not self.warned)
        if self.warned:
            return event, None
        self.warned = True
        return event, RECOVERY_NUDGE.format(detail=hit.detail)
