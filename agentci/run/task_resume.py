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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.events import types as ev
from agentci.outcome import Status, exit_code_for
from agentci.providers.base import TextPart
from agentci.providers.history import message_dict
from agentci.reports.report import TaskReport
from agentci.run.resume import (
    CONTINUED,
    ResumePoint,
    ResumeRefused,
    Totals,
    apply_patch,
    changes,
    digest,
    head_commit,
)
from agentci.tempdirs import make_temp_dir

if TYPE_CHECKING:
    from agentci.change.patch import ChangeTracker
    from agentci.run.settings import RunSettings
    from agentci.run.task import TaskRun
    from agentci.spec import TaskSpec

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
    tracker.workspace_changed()  # agentci put the earlier patch on disk: a snapshot, always
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
    # carried (refused, or stopped before it went on): the earlier end stays the one to resume
    carried = task.carried
    facts: dict[str, Any] = {
        "fingerprint": dict(point.fingerprint if carried else task.fingerprint)
    }
    this = Totals(report.turns, report.tool_calls, report.usage)
    facts.update(
        resumed_from=str(point.source),
        resumed_status=point.status.value,
        continued=point.continued and not carried,
        refused=task.refused,
        carried=carried,  # the next --resume goes on from the same earlier end
        dropped_messages=point.dropped,
        masked_values=point.masked,
        previous=point.previous.as_dict(),
        this_run=this.as_dict(),
        all_runs=(point.previous + this).as_dict(),
    )
    return facts


def kept_report(point: ResumePoint, name: str) -> TaskReport:
    """The report of a task kept as the earlier run ended it (success, verify_failed): its
    outputs carried over, nothing run, nothing spent by this run."""
    e = point.entry
    carried = e.get("status") != point.status.value  # a run that stopped before judging again
    reason = _dict(e.get("resume")).get("resumed_reason", "") if carried else e.get("reason", "")
    report = TaskReport(
        name=name,
        status=point.status,
        exit_code=exit_code_for(point.status),
        reason=str(reason),
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
        "masked_values": point.masked,
        "previous": point.previous.as_dict(),
        "this_run": Totals().as_dict(),
        "all_runs": point.previous.as_dict(),
    }
    return report


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def carried_files(point: ResumePoint) -> list[str]:
    """The changed files the earlier run reported (its patch is carried over)."""
    return [f for f in point.entry.get("changed_files", []) if isinstance(f, str)]


def carried_report(
    point: ResumePoint, name: str, status: Status, exit_code: int, reason: str
) -> TaskReport:
    """The report of a task that ended before it went on from ``point`` (a signal before it
    started, a kept task refused): the earlier history, patch and totals carried over, so a
    later --resume goes on from the same end."""
    report = TaskReport(
        name=name, status=status, exit_code=exit_code, reason=reason,
        model=str(point.entry.get("model", "")), changed_files=carried_files(point),
        history=[message_dict(m) for m in point.history],
        summary=str(point.entry.get("summary", "")),
        output=point.entry.get("output") if isinstance(point.entry.get("output"), dict) else None,
    )  # fmt: skip
    report.resume = {
        "fingerprint": point.fingerprint,
        "resumed_from": str(point.source),
        "resumed_status": point.status.value,
        "resumed_reason": _dict(point.entry.get("resume")).get("resumed_reason", "")
        if point.entry.get("status") != point.status.value
        else str(point.entry.get("reason", "")),
        "continued": False,
        "refused": status is Status.invalid_input,
        "carried": True,
        "dropped_messages": point.dropped,
        "masked_values": point.masked,
        "previous": point.previous.as_dict(),
        "this_run": Totals().as_dict(),
        "all_runs": point.previous.as_dict(),
    }
    return report


def judge_kept(
    point: ResumePoint, now: dict[str, Any], name: str, emit: Callable[[ev.Event], object]
) -> TaskReport:
    """A task the earlier run judged (success, verify_failed), checked against ``now`` (its
    fingerprint in this run: ``recipe``, ``base_commit``). A changed recipe file (another
    verify command, say) is a ``resume_changed`` warning: the verdict is kept, not judged
    again. Another commit to start from makes the verdict one about other code: refused
    (``invalid_input``, its outputs carried over) unless ``--resume-force``."""
    verdict = f"task {name!r} is kept as the earlier run judged it ({point.status.value})"
    soft = changes(point.fingerprint, now, ("recipe",))
    if soft:
        message = (
            f"--resume: {', '.join(soft)} changed since the earlier run; {verdict}, not judged "
            "again by this run (its verify command did not run): run without --resume to "
            "judge it again"
        )
        emit(ev.WarningEvent(kind="resume_changed", message=message))
    hard = changes(point.fingerprint, now, ("base_commit",))
    if hard:
        message = (
            f"cannot keep task {name!r} from {point.source}: {', '.join(hard)} changed since "
            f"the earlier run judged it ({point.status.value}), so its verdict is about other "
            "code; run the task again (without --resume), or give --resume-force to keep the "
            "earlier verdict anyway"
        )
        if not point.force:
            emit(ev.Error(kind="invalid_input", message=message))
            return carried_report(point, name, Status.invalid_input, 2, message)
        emit(ev.WarningEvent(kind="resume_changed", message=f"--resume-force: {message}"))
    return kept_report(point, name)


def kept_fingerprint(plan: TaskSpec, settings: RunSettings) -> dict[str, Any]:
    """What a kept task's verdict depends on, in this run: the recipe file and the commit
    the workspace starts from (compared by :func:`judge_kept`)."""
    recipe = settings.recipe_path
    path = settings.workspace_override or Path(plan.workspace.path)
    return {
        "recipe": digest(recipe.read_bytes()) if recipe is not None and recipe.is_file() else None,
        "base_commit": head_commit(settings.base_dir / path),
    }


def warn_restart(task: TaskRun, point: ResumePoint) -> None:
    """A task the earlier run stopped (budget, signal, provider) whose conversation is not in
    its outputs runs from the start: said in a ``resume_restarted`` warning, never silently."""
    if point.status not in CONTINUED or point.continued:
        return
    where = (Path(point.folder) / "history.jsonl").as_posix()
    message = (
        f"--resume: task {task.plan.name!r} stopped with {point.status.value}, but "
        f"{point.source} holds no conversation of it ({where} is missing or empty): it runs "
        "from the start"
    )
    task.emit(ev.WarningEvent(kind="resume_restarted", message=message))


def disclose_masked(task: TaskRun, point: ResumePoint) -> None:
    """Say that the resumed conversation holds masked values (``***``, outputs.md): in a
    ``history_redacted`` warning, and to the model, after the last tool results, so that it
    reads them again rather than writing ``***`` into a file."""
    if not point.masked:
        return
    message = (
        f"--resume: the resumed conversation of task {task.plan.name!r} holds {point.masked} "
        "masked value(s) (***): agentci masked secrets in history.jsonl, so the model is told "
        "that *** is agentci's mask, not the files' content"
    )
    task.emit(ev.WarningEvent(kind="history_redacted", message=message))
    last = task.state.messages[-1] if task.state.messages else None
    if last is not None and last.role == "user":
        last.parts.append(TextPart(MASK_NOTE))


#: What the model is told when its resumed conversation holds masked values.
MASK_NOTE = (
    "Note from agentci: this conversation was resumed from a saved copy in which agentci "
    "masked secret values as ***. A *** in the tool results above is agentci's mask, not the "
    "content of the file or output: never write *** into a file; read the file again if you "
    "need the real value."
)
