"""Read an ``events.jsonl`` back, leniently: for replay and the HTML report.

A log written by another agentci version may hold event types this one does not know, or
fields it does not know; a log cut by a kill may end in half a line. None of that stops a
reader: known events come back as their classes (:mod:`agentci.events.types`), anything else as
an :class:`OtherEvent` holding the line's object, and lines that are not JSON objects (cut,
garbage, not UTF-8, nested too deep: :mod:`agentci.jsontext`) are only counted. An ``error`` line
whose ``kind`` is a warning's (logs written before the ``warning`` event) reads as that warning.

``max_bytes`` bounds the work on a huge log: reading stops at the first line past it and
:attr:`EventLog.truncated` says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentci import jsontext
from agentci.events.types import EVENT_ADAPTER, EVENT_TYPES, Event
from agentci.events.warning_events import WARNING_KINDS


@dataclass
class OtherEvent:
    """A line whose ``type`` this agentci does not know (or whose fields it cannot read)."""

    type: str
    data: dict[str, Any]
    seq: int = 0
    task: str = ""


AnyEvent = Event | OtherEvent


@dataclass
class EventLog:
    """The lines of one ``events.jsonl``, in order."""

    events: list[AnyEvent] = field(default_factory=list)
    bad_lines: int = 0  # not JSON objects (a line cut by a kill, garbage)
    truncated: bool = False  # stopped at max_bytes: later lines were not read
    bytes_read: int = 0

    def __iter__(self) -> Iterator[AnyEvent]:
        return iter(self.events)


def parse_line(line: str | bytes) -> AnyEvent | None:
    """One line as its event, an :class:`OtherEvent`, or None when it is not a JSON object."""
    try:
        data = jsontext.loads(line)
    except jsontext.NotJson:  # not UTF-8, not JSON, nested too deep
        return None
    if not isinstance(data, dict):
        return None
    kind = str(data.get("type", ""))
    if kind == "error" and data.get("kind") in WARNING_KINDS and not data.get("traceback"):
        # written before the warning event existed: a warning was an error with its kind
        data = {k: v for k, v in data.items() if k != "traceback"} | {"type": "warning"}
        kind = "warning"
    if kind in EVENT_TYPES:
        try:
            return EVENT_ADAPTER.validate_python(data)
        except ValidationError:
            pass  # a newer version's fields: keep what it says, untyped
    seq = data.get("seq")
    return OtherEvent(
        type=kind or "unknown",
        data=data,
        seq=seq if isinstance(seq, int) else 0,
        task=str(data.get("task", "")),
    )


def read_events(path: Path, *, max_bytes: int | None = None) -> EventLog:
    """Read ``path`` (see the module docstring); raises OSError when it cannot be opened."""
    log = EventLog()
    with open(path, "rb") as fh:
        for raw in fh:
            if max_bytes is not None and log.bytes_read + len(raw) > max_bytes:
                log.truncated = True
                break
            log.bytes_read += len(raw)
            if not raw.strip():
                continue
            event = parse_line(raw)
            if event is None:
                log.bad_lines += 1
            else:
                log.events.append(event)
    return log
