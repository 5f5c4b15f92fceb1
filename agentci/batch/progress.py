"""The console of a batch, on stderr: several tasks at once, each readable.

* **On a terminal** (not CI): one live line per task, redrawn by rich on each of its events —
  ``recipe/task · turn 3 · 8,200 tokens · $0.0031 · → run_shell_command`` — and, above them,
  one line per task that has ended (status, exit code, turns, tokens, cost).
* **In GitHub Actions**: one line when a task starts; when it ends, its whole console (the
  lines ``agentci run`` would print) in a ``::group::recipe/task: status (exit N)`` …
  ``::endgroup::`` block, so the tasks' lines never interleave in the log.
* **Elsewhere** (another CI, a file, a pipe): the lines of every task as they happen, each
  prefixed with ``[recipe/task]``.
* ``-q``: nothing (a failed batch still prints one line at the end).

Every line is neutralised against workflow commands and redacted (``sanitize``).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable
from typing import Literal, TextIO

from rich.console import Console
from rich.live import Live
from rich.text import Text

from agentci.events import types as ev
from agentci.events.console import ConsoleSink
from agentci.events.live import Progress
from agentci.events.sinks import _is_terminal
from agentci.reports.redact import neutralise_workflow_commands

Mode = Literal["live", "github", "plain", "quiet"]


def console_mode(stream: TextIO, *, quiet: bool) -> Mode:
    """Which console fits ``stream`` (see the module docstring)."""
    if quiet:
        return "quiet"
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    return "live" if _is_terminal(stream) else "plain"


class Board:
    """The batch's console; :meth:`sink` gives each task its event sink."""

    def __init__(
        self,
        keys: list[str],
        *,
        mode: Mode,
        sanitize: Callable[[str], str],
        stream: TextIO | None = None,
        verbose: bool = False,
    ) -> None:
        self.mode = mode
        self.stream = stream or sys.stderr
        self.sanitize = sanitize
        self.verbose = verbose
        self.progress = {key: Progress(task=key, doing="waiting") for key in keys}
        self.buffers: dict[str, list[str]] = {key: [] for key in keys}
        self.live = None
        if mode == "live":
            self.console = Console(file=self.stream, highlight=False)
            self.live = Live(Text(""), console=self.console, transient=True, auto_refresh=False)
            self.live.start()
            self._redraw()

    def sink(self, key: str) -> TaskSink:
        """The sink of task ``key``."""
        return TaskSink(self, key)

    def _print(self, line: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # a closed console must not stop a task
            if self.live is not None:
                self.console.print(Text(line), soft_wrap=True)
            else:
                self.stream.write(line + "\n")
                self.stream.flush()

    def _redraw(self) -> None:
        if self.live is None:
            return

        lines = [self.sanitize(p.line()) for p in self.progress.values()]
        with contextlib.suppress(OSError, ValueError):
            self.live.update(Text("\n".join(lines)), refresh=True)

    def event(self, key: str, line: str | None, event: ev.Event) -> None:
        """One event of task ``key`` (``line``: its console line, if it has one)."""
        progress = self.progress.get(key) or Progress(task=key)
        progress.update(event)
        progress.task = key
        text = neutralise_workflow_commands(self.sanitize(line)) if line is not None else None
        if self.mode == "plain" and text is not None:
            self._print(f"[{key}] {text}")
        elif self.mode == "github":
            if isinstance(event, ev.RunStarted):
                self._print(f"agentci: [{key}] started")
            elif text is not None:
                self.buffers[key].append(text)
            if isinstance(event, ev.RunFinished):
                self._print(f"::group::{key}: {event.status} (exit {event.exit_code})")
                for buffered in self.buffers.pop(key, []):
                    self._print(buffered)
                self._print("::endgroup::")
        elif self.mode == "live":
            if isinstance(event, ev.RunFinished):
                self.progress.pop(key, None)
                self._redraw()  # first, so the printed line does not redraw a stale view
                self._print(self.sanitize(_ended(key, event)))
            self._redraw()

    def close(self) -> None:
        """Remove the live lines."""
        if self.live is not None:
            with contextlib.suppress(OSError, ValueError):
                self.live.stop()
            self.live = None


def _ended(key: str, event: ev.RunFinished) -> str:
    mark = "✓" if event.exit_code == 0 else "✗"
    usage = event.usage
    cost = "" if usage.cost_usd is None else f" · ${usage.cost_usd:.4f}"
    reason = f" — {event.reason}" if event.reason and event.exit_code != 0 else ""
    return (
        f"{mark} {key}: {event.status} (exit {event.exit_code}) · {usage.model_calls} calls"
        f" · {usage.total_tokens:,} tokens{cost}{reason}"
    )


class TaskSink:
    """One task's events into the :class:`Board`."""

    def __init__(self, board: Board, key: str) -> None:
        self.board = board
        self.key = key
        self.lines = ConsoleSink(io.StringIO(), sanitize=board.sanitize, verbose=board.verbose)

    def write(self, event: ev.Event) -> None:
        line = self.lines.format(event) if self.board.mode != "quiet" else None
        self.board.event(self.key, line, event)

    def close(self) -> None:
        pass
