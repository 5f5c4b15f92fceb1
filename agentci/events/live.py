"""The console on a terminal: the usual lines, and under them one live status line.

When stderr is a terminal, ``agentci run`` (without ``-q``) prints the same lines as
:class:`~agentci.events.console.ConsoleSink` and keeps, below them, a status line that rich
redraws on every event::

    fix-failing-test · turn 4 · 9,120 tokens · $0.0041 · → run_shell_command

(task, model turn, tokens so far, cost so far, what is happening now). The line disappears when
the run ends. In CI, or when stderr is a file or a pipe, only the plain lines are printed.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.text import Text

from agentci.events import types as ev
from agentci.events.console import ConsoleSink


@dataclass
class Progress:
    """What the status line shows, updated from the events."""

    task: str = ""
    turn: int = 0
    tokens: int = 0
    cost: float | None = None
    doing: str = "starting"

    def update(self, event: ev.Event) -> None:
        """Take what the status line needs from one event."""
        match event:
            case ev.TaskStarted():
                self.task, self.turn, self.doing = event.task, 0, "setting up"
            case ev.TurnStarted():
                self.turn, self.doing = event.turn, "waiting for the model"
            case ev.Usage():
                self.tokens = event.totals.total_tokens
                self.cost = event.totals.cost_usd
            case ev.ToolCallRequest():
                self.doing = f"→ {event.name}"
            case ev.VerifyResult():
                self.doing = f"verify {'passed' if event.passed else 'failed'}"
            case ev.Retry():
                self.doing = f"retry {event.attempt} in {event.delay_seconds:.1f}s"
            case ev.TaskFinished():
                self.doing = event.status
            case ev.RunFinished():
                self.tokens, self.cost = event.usage.total_tokens, event.usage.cost_usd
                self.doing = event.status

    def line(self) -> str:
        """``task · turn N · T tokens · $C · doing``."""
        cost = "" if self.cost is None else f" · ${self.cost:.4f}"
        task = f"{self.task} · " if self.task else ""
        return f"{task}turn {self.turn} · {self.tokens:,} tokens{cost} · {self.doing}"


class LiveConsoleSink:
    """Lines as :class:`ConsoleSink` prints them, printed by rich above a live status line."""

    @classmethod
    def on(
        cls, stream: TextIO, *, sanitize: Callable[[str], str], verbose: bool = False
    ) -> LiveConsoleSink:
        """The live view on the terminal ``stream``."""
        return cls(Console(file=stream, highlight=False), sanitize=sanitize, verbose=verbose)

    def __init__(
        self, console: Console, *, sanitize: Callable[[str], str], verbose: bool = False
    ) -> None:
        self.console = console
        self.sanitize = sanitize
        self.lines = ConsoleSink(io.StringIO(), sanitize=sanitize, verbose=verbose)
        self.progress = Progress()
        self.live = Live(Text(""), console=console, transient=True, auto_refresh=False)
        self.live.start()

    def write(self, event: ev.Event) -> None:
        """Print the event's line (if any) and redraw the status line."""
        try:
            line = self.lines.format(event)
            if line is not None:
                self.console.print(Text(self.sanitize(line)), soft_wrap=True)
            self.progress.update(event)
            self.live.update(Text(self.sanitize(self.progress.line())), refresh=True)
        except (OSError, ValueError):
            pass  # a closed terminal must not stop the run

    def close(self) -> None:
        """Remove the status line."""
        with contextlib.suppress(OSError, ValueError):
            self.live.stop()
