"""Content loops: the model's streamed text chanting the same words over and over.

Like Gemini CLI's content check: the prose of the answer, as it streams, is cut into
overlapping 50-character chunks (a sliding window over the last 5,000 characters); when one
chunk has been seen 10 times, on average at most 250 characters apart, and the text between
those occurrences takes at most 5 different forms (a real loop repeats one period; a list of
distinct items only shares a prefix), the text is looping.

Structured markdown repeats itself legitimately and is not looked at: fenced code blocks
(```` ``` ```` or ``~~~``), table rows (``|``), list items (``-``, ``*``, ``+``, ``1.``),
headings, block quotes and divider lines. Such a line also starts the count again, so a
chunk never spans two elements. The work per streamed character is constant: the state is
bounded by the window, whatever the length of the answer.
"""

from __future__ import annotations

import re
from collections import deque

CHUNK = 50
REPEATS = 10
WINDOW = 5_000
MAX_AVERAGE_DISTANCE = 5 * CHUNK
MAX_PERIODS = REPEATS // 2

_NUMBERED = re.compile(r"\d{1,9}[.)](\s|$)")


def _line_kind(line: str, complete: bool) -> str | None:
    """``fence``, ``structure`` or ``prose`` for the start of a line; None while unknown."""
    body = line.lstrip(" \t")
    if not complete and len(body) < 3:
        return None
    if body.startswith(("```", "~~~")):
        return "fence"
    head = body[:1]
    if head in ("|", "#", ">") or "\u2500" <= head <= "\u257f":
        return "structure"  # a table row, a heading, a quote, a box-drawn line
    if head in ("-", "*", "+") and body[1:2] in (" ", "\t", "\n", ""):
        return "structure"  # a list item
    if len(body) >= 3 and head in "-*_=" and body[:3] == head * 3:
        return "structure"  # a divider
    if head.isdigit():
        digits = len(body) - len(body.lstrip("0123456789"))
        if digits == len(body.rstrip("\n")) and not complete and digits < 10:
            return None  # "12" may still become "12. item"
        return "structure" if _NUMBERED.match(body) else "prose"
    return "prose"


class ProseFilter:
    """Splits streamed markdown into prose (returned) and structure (dropped)."""

    def __init__(self) -> None:
        self.in_code = False
        self._line = ""  # the start of the current line, while its kind is unknown
        self._kind: str | None = None  # prose / skip, once the current line's kind is known

    def feed(self, text: str) -> list[str | None]:
        """The prose pieces of ``text`` in order, and ``None`` where structure starts (the
        count must start again there)."""
        out: list[str | None] = []
        i = 0
        while i < len(text):
            nl = text.find("\n", i)
            end = len(text) if nl < 0 else nl + 1
            piece = text[i:end]
            i = end
            complete = nl >= 0
            if self._kind is None:
                self._line += piece
                kind = _line_kind(self._line, complete)
                if kind is None:
                    continue
                self._kind = self._enter(kind)
                if self._kind == "reset":
                    out.append(None)
                    self._kind = "skip"
                elif self._kind == "prose":
                    out.append(self._line)
                self._line = ""
            elif self._kind == "prose":
                out.append(piece)
            if complete:
                self._kind = None
        return out

    def _enter(self, kind: str) -> str:
        if kind == "fence":
            self.in_code = not self.in_code
            return "reset"
        if self.in_code:
            return "skip"
        if kind == "structure":
            return "reset"
        return "prose"


class ChunkRepeats:
    """The sliding-chunk count over the last :data:`WINDOW` characters of prose."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._text = ""
        self._base = 0  # absolute position of _text[0]
        self._next = 0  # absolute position of the next chunk to count
        self._seen: dict[str, deque[int]] = {}

    def add(self, text: str) -> str | None:
        """Count the chunks ``text`` completes; the looping chunk, if one is found."""
        self._text += text
        if len(self._text) > WINDOW:
            cut = len(self._text) - WINDOW
            self._text = self._text[cut:]
            self._base += cut
            self._next = max(self._next, self._base)
            if len(self._seen) > 2 * WINDOW:  # drop chunks that left the window
                self._seen = {c: p for c, p in self._seen.items() if p[-1] >= self._base}
        end = self._base + len(self._text)
        while self._next + CHUNK <= end:
            start = self._next - self._base
            chunk = self._text[start : start + CHUNK]
            if self._repeats(chunk, self._next):
                return chunk
            self._next += 1
        return None

    def _repeats(self, chunk: str, pos: int) -> bool:
        positions = self._seen.get(chunk)
        if positions is None:
            self._seen[chunk] = deque([pos], maxlen=REPEATS)
            return False
        positions.append(pos)
        if len(positions) < REPEATS or positions[0] < self._base:
            return False
        if (positions[-1] - positions[0]) / (REPEATS - 1) > MAX_AVERAGE_DISTANCE:
            return False
        marks = [p - self._base for p in positions]
        periods = {self._text[a:b] for a, b in zip(marks, marks[1:], strict=False)}
        return len(periods) <= MAX_PERIODS


class ContentLoops:
    """Watches one answer's streamed text (and its continuations) for chanting."""

    def __init__(self) -> None:
        self.prose = ProseFilter()
        self.chunks = ChunkRepeats()

    def reset(self) -> None:
        """Start again (a new prompt, a tool call in between, a detection)."""
        self.prose = ProseFilter()
        self.chunks.reset()

    def feed(self, text: str) -> str | None:
        """Feed streamed text; a description of the loop when the text repeats itself."""
        for piece in self.prose.feed(text):
            if piece is None:
                self.chunks.reset()
                continue
            chunk = self.chunks.add(piece)
            if chunk is not None:
                shown = " ".join(chunk.split())
                return f"the answer repeats the same text over and over: \u201c{shown}\u201d"
        return None
