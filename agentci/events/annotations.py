"""Verify failures with a known place as GitHub annotations (``::error file=…,line=…::``).

When a task finishes, the failures of its **last** verify run (what is still broken) that
have a file and line (:mod:`agentci.verify.locations`) become one annotation each, shown on
the pull request's diff: at most :data:`MAX_ANNOTATIONS` per run (GitHub shows no more than 50
errors of a step), each file/line/message once, in the order verify printed them; one notice
counts the rest. Every text passes the caller's ``sanitize`` (redaction and workflow-command
neutralising) and is escaped as the runner's command syntax requires.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from agentci.events import types as ev

MAX_ANNOTATIONS = 50


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: the message's escapes plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class LocationAnnotations:
    """Remembers each task's last verify result; yields its annotation lines when it ends."""

    def __init__(self, sanitize: Callable[[str], str]) -> None:
        self.sanitize = sanitize
        self.last: dict[str, ev.VerifyResult] = {}
        self.shown: set[tuple[str, int, str]] = set()
        self.left_out = 0

    def observe(self, event: ev.Event) -> Iterator[str]:
        """Annotation lines due after ``event`` (only a ``task_finished`` or ``run_finished``
        has any)."""
        if isinstance(event, ev.VerifyResult) and event.scope == "full":
            self.last[event.task] = event
        elif isinstance(event, ev.TaskFinished):
            result = self.last.pop(event.task, None)
            if result is not None and not result.passed:
                yield from self._lines(result)
        elif isinstance(event, ev.RunFinished) and self.left_out:
            yield (
                f"::notice title=agentci::{self.left_out} more verify failure(s) with a "
                f"location are not annotated (at most {MAX_ANNOTATIONS}; see sarif.json)"
            )

    def _lines(self, result: ev.VerifyResult) -> Iterator[str]:
        for loc in result.locations:
            key = (loc.file, loc.line, loc.message)
            if key in self.shown:
                continue
            if len(self.shown) >= MAX_ANNOTATIONS:
                self.left_out += 1
                continue
            self.shown.add(key)
            props = [f"file={escape_property(self.sanitize(loc.file))}", f"line={loc.line}"]
            if loc.column is not None:
                props.append(f"col={loc.column}")
            if loc.end_line is not None:
                props.append(f"endLine={loc.end_line}")
            if loc.end_column is not None and loc.end_line == loc.line:
                props.append(f"endColumn={loc.end_column}")
            title = " ".join(x for x in (loc.tool, loc.rule) if x)
            props.append(f"title={escape_property(self.sanitize(title))}")
            message = escape_data(self.sanitize(loc.message)[:2000])
            yield f"::{loc.level} {','.join(props)}::{message}"
