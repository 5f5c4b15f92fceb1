"""SIGINT and SIGTERM once a run's own handlers are in place (before that: run/early.py).

The first signal cancels the run, which still writes its outputs; a second one exits at once
with the first one's code, killing the tools' process groups and ending the event log with
``run_finished``. Once the outputs are written a signal changes nothing.

Leaving at once, nothing is put back in a workspace edited in place (no guard revert): the
files as they were when the run's first in-place task started (the user's uncommitted edits
among them) are then only in that task's private git dir, kept until the outputs are written
(:mod:`agentci.run.start_baseline`), which the next run would delete with the dead run's
leftovers.
So the second signal renames that git dir to ``agentci-kept-baseline-…`` beside it (a name the
leftovers' pruning does not match) and says on stderr, and in ``run_finished``'s reason, where it
is and the git command that puts a file back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable

from agentci.events.lifecycle_events import RunFinished
from agentci.outcome import Status, exit_code_for
from agentci.process_groups import kill_running_groups
from agentci.reports.report import RunReport
from agentci.run import early
from agentci.run.runner import Runner
from agentci.run.start_baseline import keep_start
from agentci.run.workers import LoopWorkers


async def run_with_signals(
    runner: Runner, leave_now: Callable[[RunReport], None] | None = None
) -> RunReport:
    """Run with SIGINT / SIGTERM handlers for the rest of the process (see :func:`on_signals`);
    a cancelled run calls ``leave_now`` as soon as its outputs are written."""
    loop = asyncio.get_running_loop()
    on_signals(runner, loop)
    runner.workers = LoopWorkers(loop)
    report = await runner.run()
    if report.status is Status.cancelled and leave_now is not None:
        leave_now(report)
    return report


def on_signals(runner: Runner, loop: asyncio.AbstractEventLoop) -> None:
    """Install SIGINT / SIGTERM handlers that stay until the process exits.

    The first signal cancels the run (in the event loop: the running task, or the writing of the
    outputs). A second one exits at once, with the code of the first (kills the tools' process
    groups, ends the log with ``run_finished``). Once the outputs are written
    (``runner.committed``), a signal changes nothing: the process exits with the code
    result.json holds. The handlers are plain ``signal.signal`` ones rather than the loop's, so
    no window opens when the loop closes in which a signal could end the process differently.
    """

    def handler(signum: int, frame: object) -> None:
        if runner.committed:
            return
        name = signal.Signals(signum).name
        if runner.signal_name is not None:  # the second signal: leave now
            _exit_now(runner)
        runner.signal_name = name
        with contextlib.suppress(RuntimeError):  # the loop has closed: the end is being written
            loop.call_soon_threadsafe(runner.cancel, name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)

    runner.signal_name = runner.signal_name or early.pending()  # came while it was set up


def _exit_now(runner: Runner) -> None:
    code = exit_code_for(Status.cancelled, signal_name=runner.signal_name)
    kill_running_groups()  # no tool outlives agentci, even now
    end_at_once(runner, code)
    os._exit(code)


def end_at_once(runner: Runner, code: int) -> None:
    """What a run leaving at a second signal still does (its tools' groups already killed):
    keep the baseline of a task editing its workspace in place (module docstring), say where
    on stderr, and end the event log with ``run_finished``. Never raises. A batch calls it
    for each of its running tasks."""
    reason = "a second signal"
    with contextlib.suppress(Exception):  # leaving matters more than the note
        kept = keep_start(runner.settings)  # agentci/run/start_baseline.py
        if kept:
            reason += f"; {kept}"
            os.write(2, f"agentci: stopped by a second signal; {kept}\n".encode(errors="replace"))
    with contextlib.suppress(Exception):  # one last line keeps the log honest
        runner.emitter.emit(RunFinished(status="cancelled", exit_code=code, reason=reason))
