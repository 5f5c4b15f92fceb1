"""How a task ends: its report filled in from the State and the workspace, whatever happened.

The guards revert what they refuse, the change and the patch are taken (with at least
:data:`FINAL_SNAPSHOT_SECONDS`, even when the wall clock has run out), the status is decided
from verify and the change, the ``session_end`` hooks run, and ``task_finished`` says it.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import TYPE_CHECKING

from agentci.errors import Blocked, BudgetExhausted, GitWouldBlock, HookStopped, StopRun
from agentci.events import types as ev
from agentci.hooks.loop_stages import reported, session_end
from agentci.hooks.verdict import HookVerdict
from agentci.outcome import Status, exit_code_for
from agentci.providers.history import message_dict
from agentci.reports.change_report import report_change
from agentci.reports.hook_facts import hook_facts
from agentci.reports.report import TaskReport
from agentci.run.task_resume import carried_files, resume_facts

if TYPE_CHECKING:
    from agentci.change.change import Change, Patch
    from agentci.change.patch import ChangeTracker
    from agentci.run.task import TaskRun

#: Seconds the final snapshot (the patch) gets at least, even when the wall clock has run out.
FINAL_SNAPSHOT_SECONDS = 30.0
#: Seconds each session_end hook gets at most when a signal ended the task (GitHub Actions
#: sends SIGTERM 7.5 s after the SIGINT of a cancel, and a second signal leaves at once).
SIGNALLED_HOOK_SECONDS = 5.0


def stop_event(stop: StopRun) -> ev.Event:
    """The event that says why the loop stopped (cancellation is asyncio's)."""
    if isinstance(stop, HookStopped):
        return ev.AgentExecutionStopped(reason=stop.reason)
    if isinstance(stop, BudgetExhausted):
        return ev.BudgetExhaustedEvent(
            limit=stop.limit, used=stop.used, cap=stop.cap, reason=stop.reason
        )
    if isinstance(stop, Blocked):
        return ev.AgentExecutionBlocked(reason=stop.reason)
    return ev.Error(kind=stop.status, message=stop.reason)


def finished_status(task: TaskRun, changed: bool) -> tuple[Status, str]:
    """The status of a task whose work ended by itself: verify's verdict, else the change."""
    verdict = task.check.verdict() if task.check is not None else None
    if verdict is not None:  # verify failed / regressed / guard broken, or nothing to fix
        return verdict
    if changed:
        return Status.success, ""
    return Status.no_changes, "the model finished without changing any file"


async def finish(task: TaskRun, report: TaskReport, duration_ms: int) -> None:
    """Fill in ``report`` (see the module docstring). A signal while the patch is taken
    (seconds for a large change) cancels the task."""
    state = task.state
    report.turns = state.turns
    report.tool_calls = state.tool_calls
    report.usage = state.usage.model_copy()
    report.summary, report.output = state.final_text, state.output
    report.context_files = [f.model_dump() for f in task.context_files]
    report.model = task.plan.model.name
    report.duration_ms = duration_ms
    if task.sandboxes.note:
        report.extra["no_sandbox"] = task.sandboxes.note
    if task.tracker is not None:
        await _patch(task, task.tracker, report)
        _keep_unsaved_work(task, report)
    else:
        if task.check is not None:
            await task.check.finish(report)
        if task.completed:
            report.status, report.reason = finished_status(task, False)
    report.exit_code = exit_code_for(
        report.status, allow_no_changes=task.plan.allow_no_changes, signal_name=task.signal_name
    )
    report.history = [message_dict(m) for m in state.messages]  # history.jsonl
    report.resume = resume_facts(task, report)
    point = task.resume_point
    if task.carried and point is not None:  # the earlier run's end stays readable, resumable
        task.patch = point.patch
        report.history = [message_dict(m) for m in point.history]
        report.changed_files = carried_files(point)
    await _session_end(task, report)
    task.emit(
        ev.TaskFinished(
            status=report.status.value,
            exit_code=report.exit_code,
            reason=report.reason,
            turns=report.turns,
            changed_files=report.changed_files,
            usage=report.usage,
        )
    )


#: How to remove a kept workspace, once its work is saved.
REMOVE_KEPT = {"copy": "delete it when done", "worktree": "`git worktree remove` it when done"}


def _keep_unsaved_work(task: TaskRun, report: TaskReport) -> None:
    """A copy or worktree whose work is in no patch (a signal, or a failure, while it was taken),
    or only in part (files too large for patch.diff, or unreadable), is kept, not removed: its
    place goes into result.json (``kept_workspace``) and a ``workspace_kept`` warning;
    :meth:`TaskRun.run` moves it there once the task is over."""
    prepared = task.prepared
    if prepared is None or prepared.kept_path is None:
        return
    facts = report.extra.get("patch") or {}
    left_out = [o["path"] for o in facts.get("omitted") or []] + list(facts.get("unreadable") or [])
    if task.patch_taken and not left_out:
        return
    why = (
        f"the patch leaves out {', '.join(left_out)}"
        if task.patch_taken
        else f"the patch holds none of the agent's work ({report.reason or 'it failed'})"
    )
    task.keep_workspace = True
    report.extra["kept_workspace"] = str(prepared.kept_path)
    task.emit(
        ev.WarningEvent(
            kind="workspace_kept",
            message=f"{why}: the {prepared.isolation} is kept at {prepared.kept_path}, not "
            f"removed; " + REMOVE_KEPT[prepared.isolation],
        )
    )


async def _session_end(task: TaskRun, report: TaskReport) -> None:
    """The session_end hooks of a task whose session started, however it ended; they
    observe (a failure is a warning), and a bug in running them loses no report. A signal
    while one runs (:meth:`TaskRun.cancel`) stops it — its process group is killed — and the
    later ones do not run: the run goes on to write its outputs. When a signal ended the task,
    each runs at most :data:`SIGNALLED_HOOK_SECONDS`: the run is being stopped, and a runner
    that sent one signal sends the next (which leaves at once) a few seconds later."""
    verdict = HookVerdict()
    more: list[ev.Event] = []
    task.ending = asyncio.ensure_future(
        session_end(
            task.hooks,
            verdict,
            SIGNALLED_HOOK_SECONDS if task.signal_name is not None else None,
            status=report.status.value,
            exit_code=report.exit_code,
            reason=report.reason,
            turns=report.turns,
            changed_files=report.changed_files,
        )
    )
    try:
        await task.ending
    except asyncio.CancelledError:
        if task.signal_name is None:
            raise
        if task.hooks is not None and verdict.running is not None:
            why = (
                f"cancelled by {task.signal_name}: the hook was stopped (its processes killed) "
                "and the later session_end hooks were not run"
            )
            task.hooks.stopped(verdict.running, verdict, why)
    except Exception as err:  # noqa: BLE001 - the task's end is reported whatever happens
        more = [ev.WarningEvent(kind="hook_warning", message=f"session_end hooks: {err}")]
    finally:
        task.ending = None
    for event in [*reported(verdict), *more]:
        task.emit(event)
    if task.hooks is not None and task.hooks.results:
        report.extra["hooks"] = hook_facts(task.hooks.results)


async def _patch(task: TaskRun, tracker: ChangeTracker, report: TaskReport) -> None:
    """The guards' reverts, then the change and the patch, into ``report`` and ``task.patch``."""
    tracker.baseline.deadline = task.git_deadline(FINAL_SNAPSHOT_SECONDS)
    done = False
    try:
        if task.check is not None:  # reverts what the guards refuse, before the patch
            await task.check.finish(report)
        task.patching = asyncio.ensure_future(_change_and_patch(tracker))
        change, patch = await task.patching
        report.changed_files = change.files
        task.fingerprint["tree"] = change.tree
        if task.completed:
            report.status, report.reason = finished_status(task, not change.empty)
        redactor = task.settings.redactor
        task.patch = report_change(report, change, patch, redactor, task.patch_base, task.emit,
                                   tracker.baseline.prefix)  # fmt: skip
        done = task.patch_taken = True
    except asyncio.CancelledError:
        if task.signal_name is None:
            raise
        if report.status is not Status.cancelled:
            report.status = Status.cancelled
            report.reason = f"cancelled by {task.signal_name} while the patch was taken"
            task.emit(ev.UserCancelled(signal=task.signal_name))
    except GitWouldBlock as stop:  # the workspace cannot be snapshotted: no patch
        if task.completed:
            report.status, report.reason = Status(stop.status), stop.reason
        task.emit(stop_event(stop))
    except Exception as err:  # noqa: BLE001 - a broken workspace must not lose the report
        task.emit(
            ev.Error(
                kind="internal_error",
                message=f"could not compute the patch: {err}",
                traceback=traceback.format_exc(),
            )
        )
        if task.completed:
            report.status, report.reason = Status.internal_error, str(err)
    finally:
        handover = tracker.handover() if done else None
        if handover is None:  # a folder of files: off the event loop, where other tasks run
            await asyncio.to_thread(tracker.cleanup)  # not a pinned one (run/start_baseline.py)
        else:  # the next task on this tree starts from this end (ChangeTracker.start)
            task.settings.drop_handover()
            task.settings.handover = handover


async def _change_and_patch(tracker: ChangeTracker) -> tuple[Change, Patch]:
    return await tracker.change(), await tracker.patch()
