"""Signals that come before a run's own handlers are in place (the first second of ``run``,
``batch`` or ``pre-commit``: imports, checking the recipe, preparing the output folder).

:func:`install` (the ``agentci`` command, first thing) replaces Python's default handlers —
SIGINT would raise KeyboardInterrupt, which click turns into "Aborted!" and exit 1; SIGTERM would
end the process with no word — with one that raises :class:`~agentci.errors.EarlySignal`, so the
command exits 130 / 143. For the commands that run a recipe (``run``, ``batch``, ``pre-commit``:
:func:`remember`) the first signal is only remembered: the run then starts cancelled — no task
is started — and writes the outputs of a cancelled run (:func:`pending`); a prompt still being
read from standard input is read to its end first. A second signal ends the process at once.
"""

from __future__ import annotations

import signal

from agentci.errors import EarlySignal

_pending: list[str] = []
_remembering = False


def _handler(signum: int, frame: object) -> None:
    name = signal.Signals(signum).name
    if _remembering and not _pending:
        _pending.append(name)
        return
    raise EarlySignal(_pending[0] if _pending else name)


def install(*, remember: bool = False) -> None:
    """Handle SIGINT / SIGTERM from now on (see the module docstring); ``remember``: the
    command runs a recipe (:func:`remember`)."""
    global _remembering
    _remembering = _remembering or remember
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _handler)


def remember() -> None:
    """A run is being set up: the first signal from now on is remembered, not raised."""
    install(remember=True)


def note(name: str) -> None:
    """Remember signal ``name`` (``SIGTERM``) as if it had come now (a handler of its own
    took it: the pre-commit hook's clean path), unless one is remembered already."""
    if not _pending:
        _pending.append(name)


def pending() -> str | None:
    """The signal that came while the run was set up, if any."""
    return _pending[0] if _pending else None
