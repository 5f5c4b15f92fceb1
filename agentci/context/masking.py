"""Masking old tool output: the history keeps the newest outputs whole, older ones as previews.

Tool output is most of a long session's history, and the model rarely needs an old one
again. Once the tool output kept in history passes ``context.mask_tool_output_after_tokens``
(default 50,000 tokens), the oldest outputs are replaced — newest first kept, until the rest
fits :data:`REFILL` of the budget — by a short preview (their first lines) and the name of the
file holding the whole output (saved then if it was not already, redacted, see
:mod:`agentci.tools.truncation`), which the model can ``read_file`` again. Errors are kept.

Masking down to less than the budget, in one go, is for the prompt cache: each masked output
changes the history where it sits, so the provider's cache can serve only what comes before
it. Masked one output a turn, every request past the budget would send the whole kept output
uncached; masked a few at once, the next turns find their prefix unchanged until the kept output
has grown back to the budget.

The masker indexes each output once, when its message enters the history, and keeps a running
total, so a turn's work does not grow with the history. A masked message is replaced by a new
one (never changed in place: the provider caches each message's wire form by identity).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from agentci.context.tokens import estimate_text
from agentci.providers.base import Message, ToolResultPart
from agentci.tools.truncation import SavedOutputs

#: Share of the budget the kept output is brought down to once it passes the budget.
REFILL = 0.7
#: Characters of an output kept as its preview.
PREVIEW_CHARS = 120
#: Lines of an output kept as its preview.
PREVIEW_LINES = 3
#: Lines a preview leaves out: they repeat the tool call's own arguments, already in the history.
_REPEATS_CALL = ("Command: ", "Directory: ")


@dataclass
class _Entry:
    message: int  # index in the history
    part: int  # index in the message's parts
    tokens: int


def preview(output: str, saved: str | None) -> str:
    """The short text that stands for a masked output: its first lines (less the lines that
    repeat the call's arguments, such as a shell command), its size and what brings it back.

    The note is short, and the same words every time: it appears once per old output, and
    ``read_file``'s description says once what ``@tool-outputs/`` names are."""
    lines = output.splitlines()
    top = lines[: PREVIEW_LINES + len(_REPEATS_CALL)]
    shown = [line for line in top if not line.startswith(_REPEATS_CALL)]
    head = "\n".join(shown[:PREVIEW_LINES])[:PREVIEW_CHARS]
    back = f"read_file {saved}" if saved else "not saved: run the tool again"
    return f"{head}\n[masked: {len(output)} chars, {len(lines)} lines; {back}]"


class OutputMasker:
    """Masks the oldest tool outputs of a history beyond a token budget."""

    def __init__(self, budget_tokens: int, outputs: SavedOutputs | None = None) -> None:
        self.budget = budget_tokens
        self.outputs = outputs
        self.kept = 0  # tokens of the unmasked outputs indexed
        self._entries: deque[_Entry] = deque()
        self._seen = 0  # messages indexed

    def rewritten(self) -> None:
        """The history was replaced (compression): index it again from the start."""
        self.kept = 0
        self._entries.clear()
        self._seen = 0

    def mask(self, messages: list[Message]) -> list[tuple[int, int]]:
        """Index new messages; once the kept outputs exceed the budget, mask the oldest until
        they fit :data:`REFILL` of it; the newest output is never masked. Returns ``(message
        index, tokens saved)`` of each masked output; ``messages`` is updated in place."""
        for i in range(self._seen, len(messages)):
            for j, part in enumerate(messages[i].parts):
                if isinstance(part, ToolResultPart) and not part.masked:
                    entry = _Entry(i, j, estimate_text(part.output))
                    self._entries.append(entry)
                    self.kept += entry.tokens
        self._seen = len(messages)
        done: list[tuple[int, int]] = []
        if self.kept <= self.budget:
            return done
        while self.kept > self.budget * REFILL and len(self._entries) > 1:
            entry = self._entries.popleft()
            self.kept -= entry.tokens
            saved = self._mask(messages, entry)
            if saved > 0:
                done.append((entry.message, saved))
        return done

    def _mask(self, messages: list[Message], entry: _Entry) -> int:
        message = messages[entry.message]
        part = message.parts[entry.part]
        assert isinstance(part, ToolResultPart)
        if len(part.output) <= 2 * PREVIEW_CHARS:
            return 0  # a short output stays as it is
        saved = part.saved
        if saved is None and self.outputs is not None and part.output:
            saved = self.outputs.save(part.output, part.name)
        shown = preview(part.output, saved)
        before = estimate_text(part.output)
        after = estimate_text(shown)
        if after >= before:
            return 0
        parts = list(message.parts)
        parts[entry.part] = replace(part, output=shown, saved=saved, masked=True)
        messages[entry.message] = Message(message.role, parts)
        return before - after
