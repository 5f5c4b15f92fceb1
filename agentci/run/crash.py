"""The last resort: a bug escaped every other handler. Exit 70, honestly, with what we have.

Bugs inside a task are caught by the task (status ``internal_error``, the traceback in an
``error`` event, every output written). This module covers the rest — a failure in the runner,
an event sink or the launch code itself: one line on stderr, the redacted traceback after it,
and, when the run had started, an ``error`` event, the outputs and ``run_finished``. The tasks that had already finished keep
their report and patch in the outputs; the others are listed ``internal_error``.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Any

from agentci.errors import LogUnwritable
from agentci.events import types as ev
from agentci.events.sinks import tell
from agentci.outcome import Status, exit_code_for
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport
from agentci.run.run_end import finish_run
from agentci.usage import total

if TYPE_CHECKING:
    from agentci.run.runner import Runner

INTERNAL_ERROR = exit_code_for(Status.internal_error)


def _redact(redactor: Any, text: str) -> str:
    if redactor is None:
        redactor = Redactor.from_environ()
    return redactor.redact(text)


def crash_exit(err: BaseException, *, runner: Runner | None = None, redactor: Any = None) -> int:
    """Report ``err`` as an internal error and return exit code 70 (never raises).

    :class:`~agentci.errors.LogUnwritable` outside any task (a disk with no room for the run's
    first event) is no bug: the event sink has said so on stderr already, so no traceback."""
    known = isinstance(err, LogUnwritable)
    tb = traceback.format_exc()
    try:
        if not known:
            line = f"agentci: internal error (a bug in agentci): {type(err).__name__}: {err}"
            tell(_redact(redactor, line))
            tell(_redact(redactor, tb))
    except Exception:  # noqa: BLE001 - the redactor failed; the exit code still tells
        pass
    if runner is None:
        return INTERNAL_ERROR
    try:
        message = f"{type(err).__name__}: {err}"
        runner.emitter.emit(
            ev.Error(kind="internal_error", message=message, traceback=None if known else tb)
        )
        tasks = _tasks(runner, message)
        report = RunReport(
            run_id=runner.emitter.run_id,
            recipe=runner.settings.recipe_label,
            recipe_name=runner.settings.recipe.name,
            status=Status.internal_error,
            exit_code=INTERNAL_ERROR,
            reason=message,
            tasks=tasks,
            usage=total([t.usage for t in tasks]),
            started_at=runner.started_at,
        )
        patches = {p.name: runner.patches.get(p.name, "") for p in runner.plans}
        finish_run(
            report,
            patches,
            out_dir=runner.out_dir,
            emitter=runner.emitter,
            redactor=runner.redactor,
        )
    except Exception:  # noqa: BLE001 - nothing more can be saved
        pass
    return INTERNAL_ERROR


def _tasks(runner: Runner, message: str) -> list[Any]:
    """The tasks that finished, as they finished; the others ``internal_error``."""
    done = {r.name: r for r in runner.reports}
    current = runner.current
    if current is not None and current.finished is not None:
        done.setdefault(current.plan.name, current.finished)
        runner.patches.setdefault(current.plan.name, current.patch)
    reason = f"the run stopped on a bug in agentci before this task finished: {message}"
    return [
        done.get(p.name)
        or TaskReport(p.name, Status.internal_error, INTERNAL_ERROR, reason, model=p.model.name)
        for p in runner.plans
    ]
