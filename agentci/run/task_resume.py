"""A task that goes on from an earlier run (``agentci run --resume OUT``, :mod:`agentci.run.resume`).

The task runs as any other up to its patch baseline (workspace, setup, baseline verify). Then,
instead of a first prompt:

1. its fingerprint is compared with the earlier one: another model, other tool declarations or
   other workspace files before the agent make the conversation wrong, and the task is refused
   (``invalid_input``, exit 2) unless ``--resume-force``; a changed recipe file or system prompt
   is only a ``resume_changed`` warning;
2. the earlier patch is put on the workspace (``git apply``), and the result must be the files
   the earlier run ended with (a redacted or incomplete patch is not);
3. the conversation goes on from its last complete turn, with fresh budgets.

The report carries both runs' totals: ``previous`` (every earlier run) and ``all_runs``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.events import types as ev
from agentci.providers.history import message_dict
from agentci.reports.report import TaskReport
from agentci.run.resume import ResumePoint, ResumeRefused, Totals, apply_patch, changes
from agentci.tempdirs import make_temp_dir

if TYPE_CHECKING:
    from agentci.change.patch import ChangeTracker
    from agentci.run.task import TaskRun

#: What makes the earlier conversation wrong when it changed.
HARD = ("model", "tools", "base_tree")
#: What changed without making it wrong (a warning).
SOFT = ("recipe",)


def _refuse(task: TaskRun, point: ResumePoint, what: list[str]) -> None:
    message = (
        f"cannot resume task {task.plan.name!r} from {point.source}: {', '.join(what)} "
        "changed since the earlier run, so its conversation no longer fits; run the task from "
        "the start (without --resume), or give --resume-force to go on anyway"
    )
    if not point.force:
        raise ResumeRefused(message)
    task.emit(ev.WarningEvent(kind="resume_changed", message=f"--resume-force: {message}"))


async def resume_workspace(
    task: TaskRun, point: ResumePoint, tracker: ChangeTracker, workspace: Path
) -> None:
    """Steps 1 and 2 of the module doc; raises :class:`ResumeRefused`."""
    hard = changes(point.fingerprint, task.fingerprint, HARD)
    if hard:
        _refuse(task, point, hard)
    soft = changes(point.fingerprint, task.fingerprint, SOFT)
    if soft:
        message = f"--resume: {', '.join(soft)} changed since the earlier run"
        task.emit(ev.WarningEvent(kind="resume_changed", message=message))
    scratch = make_temp_dir("resume")
    try:
        trouble = apply_patch(workspace, point.patch, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if trouble:
        raise ResumeRefused(
            f"cannot resume task {task.plan.name!r} from {point.source}: the earlier patch "
            f"does not apply to this workspace: {trouble}"
        )
    tracker.agent_started()
    change = await tracker.change()
    before = point.fingerprint.get("tree")
    if before and change.tree != before:
        _refuse(task, point, changes({"tree": before}, {"tree": change.tree}, ("tree",)))


def resume_facts(task: TaskRun, report: TaskReport) -> dict[str, Any]:
    """The task's ``resume`` entry of result.json: its fingerprint, and with ``--resume`` where
    it came from and both runs' totals, labelled."""
    point = task.resume_point
    if point is None:
        return {"fingerprint": dict(task.fingerprint)}
    # refused: the earlier run's end stays the one to resume
    facts: dict[str, Any] = {
        "fingerprint": dict(point.fingerprint if task.refused else task.fingerprint)
    }
    this = Totals(report.turns, report.tool_calls, report.usage)
    facts.update(
        resumed_from=str(point.source),
        resumed_status=point.status.value,
        continued=point.continued and not task.refused,
        refused=task.refused,  # the next --resume goes on from the same earlier end
        dropped_messages=point.dropped,
        previous=point.previous.as_dict(),
        this_run=this.as_dict(),
        all_runs=(point.previous + this).as_dict(),
    )
    return facts


def kept_report(point: ResumePoint, name: str) -> TaskReport:
    """The report of a task kept as the earlier run ended it (success, verify_failed): its
    outputs carried over, nothing run, nothing spent by this run."""
    e = point.entry
    report = TaskReport(
        name=name,
        status=point.status,
        exit_code=int(e.get("exit_code", 0)),
        reason=str(e.get("reason", "")),
        summary=str(e.get("summary", "")),
        model=str(e.get("model", "")),
        changed_files=[str(f) for f in e.get("changed_files", []) if isinstance(f, str)],
        extra=dict(e.get("extra") or {}),
        output=e.get("output") if isinstance(e.get("output"), dict) else None,
        history=[message_dict(m) for m in point.history],
    )
    report.resume = {
        "fingerprint": point.fingerprint,
        "resumed_from": str(point.source),
        "resumed_status": point.status.value,
        "kept": True,
        "previous": point.previous.as_dict(),
        "this_run": Totals().as_dict(),
        "all_runs": point.previous.as_dict(),
    }
    return report
