"""The end of a run's outputs: what an output that could not be written, or a moved
installation, makes of the report, the final ``run_finished`` event, and :func:`finish_run`
(the outputs written then that event, for a run that has no :class:`~agentci.run.runner.Runner`
writer of its own)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from agentci.events import types as ev
from agentci.events.sinks import Emitter
from agentci.outcome import Status
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport
from agentci.reports.writer import OPTIONAL_OUTPUTS, unwritten_reason, write_outputs


def refuse_outputs(report: RunReport, moved: list[Path], emitter: Emitter) -> None:
    """agentci's protected installation was moved during the run: the run ends
    ``internal_error`` (70) and no output is written (writing them imports from there)."""
    reason = (
        "agentci's own installation inside the workspace was moved or replaced during the run "
        f"(a folder above {moved[0]} was renamed); agentci imports "
        "nothing more from it, so the outputs are not written"
    )
    emitter.emit(ev.Error(kind="internal_error", message=reason))
    report.status, report.exit_code, report.reason = Status.internal_error, 70, reason


def mark_unwritten(report: RunReport, failed: list[str], emitter: Emitter) -> None:
    """An output that could not be written makes the run ``internal_error`` (70), and each of
    its tasks: their results are the outputs (``agentci batch`` and ``merge`` read a task's
    status from its entry in result.json)."""
    reason = unwritten_reason(report.status, report.reason, failed)
    emitter.emit(ev.Error(kind="internal_error", message=reason))
    report.status, report.exit_code, report.reason = Status.internal_error, 70, reason
    for task in report.tasks:
        task.reason = unwritten_reason(task.status, task.reason, failed)
        task.status, task.exit_code = Status.internal_error, 70


def run_finished(report: RunReport) -> ev.RunFinished:
    return ev.RunFinished(
        status=report.status.value,
        exit_code=report.exit_code,
        reason=report.reason,
        usage=report.usage,
        duration_ms=report.duration_ms,
    )


def finish_run(
    report: RunReport,
    patches: dict[str, str],
    *,
    out_dir: Path,
    emitter: Emitter,
    redactor: Redactor,
    optional: frozenset[str] = OPTIONAL_OUTPUTS,
) -> None:
    """Write the outputs, then the final ``run_finished`` event. An output that could not be
    written makes the run ``internal_error`` (70): a pipeline must not read success from a run
    whose results are missing. The outputs that can be written are rewritten to say so."""
    try:
        failed = write_outputs(out_dir, report, patches, redactor, optional=optional)
    except Exception as err:  # noqa: BLE001 - report the failure honestly, still finish
        failed = [f"{type(err).__name__}: {err}"]
    if failed:
        mark_unwritten(report, failed, emitter)
        with contextlib.suppress(Exception):
            write_outputs(out_dir, report, patches, redactor, optional=optional)
    emitter.emit(run_finished(report))
