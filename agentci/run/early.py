"""Signals that come before a run's own handlers are in place (the first second of ``run``,
``batch`` or ``pre-commit``: imports, checking the recipe, preparing the output folder).

:func:`install` (the ``agentci`` command, first thing) replaces Python's default handlers —
SIGINT would raise KeyboardInterrupt, which click turns into "Aborted!" and exit 1; SIGTERM would
end the process with no word — with one that raises :class:`~agentci.errors.EarlySignal`, so the
command exits 130 / 143. For the commands that run a recipe (``run``, ``batch``, ``pre-commit``:
:func:`remember`) the first signal is only remembered: the run then starts cancelled — no task
is started — and writes the outputs of a cancelled run (:func:`pending`); a prompt still being
read from standard input is read to its end first. A second signal ends the process at once.

The handler is installed when this module is imported by the ``agentci`` program itself (the
console script or ``python -m agentci``): ``agentci.cli`` imports it before anything else
(click, pathlib), so the window in which a signal still gets Python's default handling is the
interpreter's own start-up. Imported by any other program (a test, an application that embeds
agentci) it installs nothing. It imports only the standard library's built-in modules.
"""

from __future__ import annotations

import os
import signal
import sys

#: The commands whose first moments' signal still ends with a cancelled run's outputs.
RUNS_A_RECIPE = ("run", "batch", "pre-commit")


class EarlySignal(BaseException):
    """SIGINT / SIGTERM before a run could record it: ends the command at once with the
    signal's exit code (a BaseException, like KeyboardInterrupt)."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


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


def _is_the_agentci_program() -> bool:
    """Whether this process is the ``agentci`` program (its console script, or
    ``python -m agentci``), not a program that imports agentci."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return bool(spec.name == "agentci.__main__")
    script = os.path.basename(getattr(main, "__file__", None) or "")
    return script in ("agentci", "agentci-script.py")


def runs_a_recipe(argv: list[str]) -> bool:
    """Whether the command line names a command that runs a recipe (:data:`RUNS_A_RECIPE`)."""
    return len(argv) > 1 and argv[1] in RUNS_A_RECIPE


if _is_the_agentci_program():
    install(remember=runs_a_recipe(sys.argv))
