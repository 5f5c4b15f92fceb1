"""Where events go: the JSONL log, the console, GitHub annotations.

The :class:`Emitter` stamps every event (``seq``, ``ts``, ``run_id``, ``task``) and hands
the same object to each sink. A console that cannot be written (a closed pipe such as
``agentci run --format jsonl | head -1``, a closed stdout or stderr) never changes the outcome:
that sink is dropped with one note (a ``warning`` event, kind ``console_unavailable``) and the
run goes on; only the JSONL log (``essential``) is an output whose failure counts: when it
cannot be written (a full disk), the space the output folder kept is freed for the run's last
events and :class:`LogUnwritable` stops the run, which ends ``internal_error`` with its outputs;
without such space the log is closed to further lines and the outputs that still fit are written.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TextIO

from agentci import jsontext
from agentci.errors import LogUnwritable
from agentci.events.console import ConsoleSink
from agentci.events.lifecycle_events import RunFinished
from agentci.events.reserve import release_reserve
from agentci.events.stdout_product import StdoutProduct
from agentci.events.types import Event
from agentci.events.warning_events import WarningEvent


class Sink(Protocol):
    def write(self, event: Event) -> None: ...
    def close(self) -> None: ...


def tell(line: str) -> None:
    """One line on stderr, if there is a stderr to write to (it may be closed)."""
    try:
        if sys.stderr is not None:
            print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def silence(stream: Any) -> None:
    """Point a failed console stream at /dev/null, so the interpreter's last flush of what is
    still buffered cannot fail at exit (which would print a warning and exit 120)."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass


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
        self.log_lost = False  # events.jsonl failed once (a full disk): the run stops

    def emit(self, event: Event, *, task: str = "") -> Event:
        """Stamp ``event`` (a copy) and write it to every sink; returns the stamped event."""
        self.seq += 1
        stamped = event.model_copy(
            update={"seq": self.seq, "ts": utc_now(), "run_id": self.run_id, "task": task}
        )
        failed: list[tuple[Sink, Exception]] = []
        lost_log: OSError | None = None
        for sink in list(self.sinks):
            try:
                sink.write(stamped)
            except OSError as err:
                if not getattr(sink, "essential", False):
                    failed.append((sink, err))
                    continue
                lost_log = err
                if _write_after_release(sink, stamped):
                    continue  # the space kept for the end of the run: the run stops still
                self.sinks.remove(sink)  # a full disk: the log keeps its whole lines, no more
                with contextlib.suppress(OSError):
                    sink.close()
            except Exception as err:  # noqa: BLE001 - a console must not end the run
                if getattr(sink, "essential", False):
                    raise
                failed.append((sink, err))
        self.last = stamped
        for sink, error in failed:
            self._drop(sink, error, last=isinstance(event, RunFinished))
        if lost_log is not None and not self.log_lost:
            self.log_lost = True  # told once: the run is stopping already after that
            reason = f"events.jsonl could not be written ({lost_log.strerror or lost_log})"
            tell(f"agentci: {reason}; the run stops, the outputs that fit are written")
            if not isinstance(event, RunFinished):  # the run's end is decided already
                raise LogUnwritable(reason)
        return stamped

    def _drop(self, sink: Sink, err: Exception, *, last: bool) -> None:
        """Stop writing to a console that failed, and say so once in the other sinks (on
        stderr instead when the failed event was ``run_finished``, which stays the last line)."""
        self.sinks.remove(sink)
        stream = getattr(sink, "stream", None)
        silence(stream)
        where = getattr(stream, "name", None) or "a closed stream"
        message = (
            f"{type(sink).__name__} on {where} dropped ({type(err).__name__}: {err}); "
            "the run, events.jsonl and the outputs are not affected"
        )
        if last:
            tell(f"agentci: {message}")
        else:
            self.emit(WarningEvent(kind="console_unavailable", message=message))

    def close(self) -> None:
        for sink in self.sinks:
            try:
                sink.close()
            except Exception:  # noqa: BLE001 - same rule as emit: only the log counts
                if getattr(sink, "essential", False):
                    raise
                silence(getattr(sink, "stream", None))


def _write_after_release(sink: Sink, event: Event) -> bool:
    """Free the output folder's reserved space (once) and write ``event`` again; True when it
    is written (the log then takes the run's last events, the run stops as on a full disk)."""
    release = getattr(sink, "release_reserve", None)
    if release is None or not release():
        return False
    try:
        sink.write(event)
    except OSError:
        return False
    return True


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


class EventLines:
    """Each event's redacted JSON line, made once: the sinks that write the same line
    (events.jsonl, ``--format jsonl`` on stdout) share one of these, so an event's data (a 63 kB
    tool output) is dumped, redacted and serialised once, not once per sink."""

    def __init__(self, redact: Callable[[Any], Any] = _identity) -> None:
        self._redact = redact
        self._last: tuple[Event, str] | None = None  # the event is held: its id is not reused

    def __call__(self, event: Event) -> str:
        last = self._last
        if last is not None and last[0] is event:
            return last[1]
        data = self._redact(event.model_dump(mode="json"))
        line = jsontext.dumps(data, separators=(",", ":")) + "\n"  # not-UTF-8 names escaped
        self._last = (event, line)
        return line


class JsonlSink:
    """events.jsonl: one object per line, each line written in one call and flushed.

    A run killed at any moment leaves a file whose every complete line parses.
    ``redact`` is applied to the event's data before it is serialised.
    """

    essential = True  # the log is an output: failing to write it is not a console problem

    def __init__(
        self,
        path: Path,
        *,
        redact: Callable[[Any], Any] = _identity,
        lines: EventLines | None = None,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        self._lines = lines or EventLines(redact)

    def write(self, event: Event) -> None:
        if self._fd < 0:
            return
        write_whole_line(self._fd, self._lines(event).encode("utf-8"))

    def release_reserve(self) -> bool:
        """Free the space set aside in the log's folder (agentci.events.reserve)."""
        return release_reserve(self.path.parent)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class StreamJsonlSink:
    """``--format jsonl``: the same lines on a stream (stdout)."""

    def __init__(
        self,
        stream: TextIO,
        *,
        redact: Callable[[Any], Any] = _identity,
        lines: EventLines | None = None,
        product: StdoutProduct | None = None,
    ) -> None:
        self.stream = stream
        self._lines = lines or EventLines(redact)
        self.product = product

    def write(self, event: Event) -> None:
        try:
            self.stream.write(self._lines(event))
            self.stream.flush()
        except OSError as err:  # dropped as a console; a lost product counts at the exit
            if self.product is not None:
                self.product.failed(err)
            raise

    def close(self) -> None:
        self.stream.flush()


def open_console_sink(
    stream: TextIO | None = None,
    *,
    sanitize: Callable[[str], str] = _identity,
    verbose: bool = False,
) -> Sink:
    """The human view on stderr: one short line per event (see agentci.events.console); on a
    terminal, with a live status line under them (agentci.events.live)."""
    stream = stream or sys.stderr
    if _is_terminal(stream):
        # deferred: rich (the live status line) loads only for a person's terminal, not in CI
        from agentci.events.live import LiveConsoleSink

        return LiveConsoleSink.on(stream, sanitize=sanitize, verbose=verbose)
    return ConsoleSink(stream, sanitize=sanitize, verbose=verbose)


def _is_terminal(stream: TextIO) -> bool:
    """A terminal a person watches (not CI, not a dumb terminal, not a file or a pipe)."""
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
