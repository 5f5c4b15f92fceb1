"""The ``agentci`` command. Each sub-command lives in its own module, loaded when it is named
(or listed by ``--help``), so ``agentci --version`` stays fast (no google-genai import)."""

from __future__ import annotations

# isort: off
# First of all: from here on a signal is handled (agentci.run.early installs its handler when
# it is imported by the agentci program), before click and the rest are imported.
from agentci.run import early

# isort: on
import atexit
import gc
import importlib
import os
import sys

import click

from agentci import __version__
from agentci.outcome import Status, exit_code_for
from agentci.run.early import RUNS_A_RECIPE, EarlySignal

#: Each command: the module that defines it and its name there (``--help`` lists them sorted).
COMMANDS = {
    "run": ("agentci.cli.run", "run_command"),
    "validate": ("agentci.cli.validate", "validate_command"),
    "schema": ("agentci.cli.schema", "schema_command"),
    "replay": ("agentci.cli.replay", "replay_command"),
    "init": ("agentci.cli.init", "init_command"),
    "pre-commit": ("agentci.cli.precommit", "pre_commit_command"),
    "batch": ("agentci.cli.batch", "batch_command"),
    "matrix": ("agentci.cli.matrix", "matrix_command"),
    "report": ("agentci.cli.report", "report_group"),
    "cassette": ("agentci.cli.cassette", "cassette_group"),
}


class LazyGroup(click.Group):
    """A group whose commands are imported when they are named: the start-up of one command
    (``--version`` above all) does not pay for the imports of the others."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), name)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="agentci")
def cli() -> None:
    """Run an LLM coding agent headlessly in pipelines, from a YAML recipe.

    Outputs (in outputs.dir, default .agentci/out): events.jsonl, patch.diff, junit.xml,
    result.json, summary.md, report.html, history.jsonl (the conversation, for --resume),
    sarif.json (failures at places of the code) and output.json (a structured answer).

    Exit codes: 0 success, 1 no changes or verify failed, 2 invalid input, 3 budget
    exhausted, 4 loop detected, 5 blocked, 6 provider error (auth, model name, bad request),
    7 invalid output (no answer matching output.schema), 70 internal error, 75 provider
    unavailable (quota, 5xx or network after the retries: run it again later), 130/143
    cancelled (SIGINT/SIGTERM).
    """


def _reserve_std_fds() -> None:
    """Open /dev/null on a closed stdin, stdout or stderr, so no file agentci opens later (the
    event log, a tool's pipe) can take fd 0, 1 or 2 and receive what was meant for them."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def _load_command(argv: list[str]) -> None:
    """Import the named command's module with the garbage collector off, then freeze what the
    imports made: start-up allocates hundreds of thousands of long-lived objects (classes,
    schemas), and collections that walk them again and again cost about a tenth of a short
    command's time. Frozen objects are left out of every later collection."""
    gc.disable()
    try:
        if len(argv) > 1 and argv[1] in COMMANDS:
            importlib.import_module(COMMANDS[argv[1]][0])
    finally:
        gc.freeze()
        gc.enable()


def main() -> None:
    """Entry point of the ``agentci`` console script."""
    _reserve_std_fds()
    # a signal in the first moments: exit 130 / 143, after a run's outputs (agentci.run.early)
    early.install(remember=early.runs_a_recipe(sys.argv))
    try:
        _load_command(sys.argv)
        cli(prog_name="agentci")
    except EarlySignal as sig:
        print(f"agentci: cancelled by {sig.signal_name}", file=sys.stderr)
        raise SystemExit(exit_code_for(Status.cancelled, signal_name=sig.signal_name)) from None
    finally:
        # Everything is written by now. Freezing the heap spares the interpreter's final
        # garbage collection a walk over every SDK object (about 0.15 s at exit).
        gc.freeze()


def console() -> None:
    """The ``agentci`` program (console script and ``python -m agentci``): :func:`main`, then,
    after a run, ``batch`` or ``pre-commit``, a quick exit.

    Such a command has written and fsynced its outputs, closed its event log (OpenTelemetry
    spans exported) and reaped its children by the time :func:`main` ends. What the interpreter
    would still do is run the exit handlers (this does: out-folder locks removed, temporary
    folders deleted, logging flushed), flush stdout and stderr (this does), and then free every
    object of the heap one by one, the SDK's and pydantic's included: tens of milliseconds of a
    short run's last answer to exit, with nothing left to lose. So the process leaves there.
    :func:`main` itself returns as usual (an application that embeds agentci keeps its exit).
    """
    try:
        main()
    except SystemExit as done:
        if len(sys.argv) > 1 and sys.argv[1] in RUNS_A_RECIPE and isinstance(done.code, int):
            leave(done.code)
        raise


def leave(code: int) -> None:
    """Run the exit handlers, flush stdout and stderr, and end the process with ``code``
    without tearing the interpreter down. Returns (the normal exit follows) when this Python
    cannot run its exit handlers early."""
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None:  # not CPython: let the interpreter exit as usual
        return
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed before the start (``>&-``): nothing to lose, as documented
            continue
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - as at a normal exit: a lost stdout is an error
            code = code or 120
    os._exit(code)
