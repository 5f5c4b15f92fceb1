"""Capping tool output before it enters history (docs/architecture.md).

Output is cut in the middle: the head (what a command started with) and the tail (where
errors and summaries end up) are kept, and a note says how much was dropped, so the model
knows it did not see everything.
"""

from __future__ import annotations


def omitted_note(count: int, unit: str = "characters") -> str:
    """The marker put where output was dropped."""
    return f"\n[... {count} {unit} omitted ...]\n"


def truncate_middle(text: str, cap: int) -> str:
    """Return ``text`` unchanged if it fits in ``cap`` characters, else head + note + tail."""
    if cap <= 0 or len(text) <= cap:
        return text
    half = cap // 2
    head = text[:half]
    tail = text[len(text) - (cap - half) :]
    return head + omitted_note(len(text) - len(head) - len(tail)) + tail


class HeadTailBuffer:
    """Collects a byte stream keeping the first and last ``cap // 2`` bytes.

    Memory stays bounded whatever the stream's length; :meth:`text` joins both ends
    with a note giving how many bytes were dropped.
    """

    def __init__(self, cap: int) -> None:
        self.cap = max(cap, 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Add a chunk of the stream."""
        self.total += len(data)
        half = self.cap // 2
        room = half - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            keep = self.cap - half
            if len(self._tail) > keep:
                del self._tail[: len(self._tail) - keep]

    @property
    def dropped(self) -> int:
        """Bytes seen but not kept."""
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        """The kept output, decoded as UTF-8 (invalid bytes replaced)."""
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if self.dropped:
            return head + omitted_note(self.dropped, "bytes") + tail
        return head + tail
