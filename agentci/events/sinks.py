"""Where events go: the JSONL log, the console, GitHub annotations.

The :class:`Emitter` stamps every event (``seq``, ``ts``, ``run_id``, ``task``) and hands
the same object to each sink. A sink never raises into the loop.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TextIO

from agentci.events.types import Event


class Sink(Protocol):
    def write(self, event: Event) -> None: ...
    def close(self) -> None: ...


def _identity(value: Any) -> Any:
    return value


def utc_now() -> str:
    """An ISO-8601 UTC timestamp with milliseconds and a ``Z``."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class Emitter:
    """Stamps events and sends them to every sink, in order."""

    def __init__(self, run_id: str, sinks: list[Sink]) -> None:
        self.run_id = run_id
        self.sinks = sinks
        self.seq = 0
        self.last: Event | None = None

    def emit(self, event: Event, *, task: str = "") -> Event:
        """Stamp ``event`` (a copy) and write it to every sink; returns the stamped event."""
        self.seq += 1
        stamped = event.model_copy(
            update={"seq": self.seq, "ts": utc_now(), "run_id": self.run_id, "task": task}
        )
        for sink in self.sinks:
            sink.write(stamped)
        self.last = stamped
        return stamped

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


def write_whole_line(fd: int, data: bytes) -> None:
    """Append ``data`` to ``fd`` whole or not at all: when the disk fills up mid-line, the
    partial line is cut off again and the error raised (the file keeps only whole lines)."""
    size = os.fstat(fd).st_size
    done = 0
    try:
        while done < len(data):
            done += os.write(fd, data[done:])
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise


class JsonlSink:
    """events.jsonl: one object per line, each line written in one call and flushed.

    A run killed at any moment leaves a file whose every complete line parses.
    ``redact`` is applied to the event's data before it is serialised.
    """

    def __init__(self, path: Path, *, redact: Callable[[Any], Any] = _identity) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        self._redact = redact

    def write(self, event: Event) -> None:
        if self._fd < 0:
            return
        data = self._redact(event.model_dump(mode="json"))
        line = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
        write_whole_line(self._fd, line.encode("utf-8"))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class StreamJsonlSink:
    """``--format jsonl``: the same lines on a stream (stdout)."""

    def __init__(self, stream: TextIO, *, redact: Callable[[Any], Any] = _identity) -> None:
        self.stream = stream
        self._redact = redact

    def write(self, event: Event) -> None:
        data = self._redact(event.model_dump(mode="json"))
        self.stream.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.stream.flush()

    def close(self) -> None:
        self.stream.flush()


def open_console_sink(
    stream: TextIO | None = None,
    *,
    sanitize: Callable[[str], str] = _identity,
    verbose: bool = False,
) -> Sink:
    """The human view on stderr: one short line per event (see agentci.events.console)."""
    from agentci.events.console import ConsoleSink

    return ConsoleSink(stream or sys.stderr, sanitize=sanitize, verbose=verbose)
