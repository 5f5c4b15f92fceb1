"""Idempotent maintenance: ``outputs.branch`` and ``--skip-if-proposed`` around each task.

* **Before a task** (``--skip-if-proposed``): when a branch already carries agentci's commit
  of this task made from the current HEAD (:mod:`agentci.change.branch`), the task is not
  run — no setup, no model call — and ends ``no_changes`` with reason ``already_proposed``.
* **After a successful task** (``outputs.branch`` set): the patch's hash is checked against
  every branch again; the same change already proposed ends the task ``no_changes``
  (``already_proposed``) without a new commit; otherwise the patch is committed to the branch
  and ``result.json`` says where (``tasks[].extra.branch``).

``already_proposed`` exits 0: the work is done, in a branch waiting for review (a nightly job
that finds nothing new must stay green). A branch that cannot be made (the patch does not
apply to HEAD, masked secrets, a branch whose tip is not the commit agentci made there for
this task, a branch git cannot create) is a ``warning`` event ``branch_failed`` and
``tasks[].extra.branch_failed`` in result.json (and a line in summary.md); the task keeps its
status and its patch.diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentci.change.branch import BranchError, Repo, commit_message
from agentci.errors import InvalidInput
from agentci.events import types as ev
from agentci.outcome import Status
from agentci.recipe.render import render
from agentci.reports.redact import Redactor
from agentci.reports.report import TaskReport
from agentci.run.task import Emit, RunSettings, TaskRun
from agentci.spec import TaskSpec

ALREADY_PROPOSED = "already_proposed"


class Delivery:
    """What the runner asks before and after each task of one recipe."""

    def __init__(self, settings: RunSettings, *, skip_if_proposed: bool = False) -> None:
        self.settings = settings
        self.config = settings.recipe.outputs.branch
        self.skip_if_proposed = skip_if_proposed
        named = settings.workspace_override or Path(settings.recipe.workspace.path)
        workspace = (settings.base_dir / named).resolve()
        self.repo = Repo.find(workspace)
        self.directory = ""
        if self.repo is not None and workspace != self.repo.top:
            self.directory = workspace.relative_to(self.repo.top.resolve()).as_posix()
        self.bases: dict[str, str] = {}

    def key(self, plan: TaskSpec) -> str:
        return f"{self.settings.recipe.name}/{plan.name}"

    def before_task(self, plan: TaskSpec, emit: Emit) -> TaskReport | None:
        """The report of a task that is not run (already proposed), or None to run it."""
        base = self.repo.head() if self.repo is not None else ""
        self.bases[plan.name] = base
        if not (self.skip_if_proposed and base and self.repo is not None):
            return None
        found = self.repo.find_by_task(self.key(plan), base)
        if found is None:
            return None
        report = TaskReport(name=plan.name, status=Status.no_changes, exit_code=0)
        report.model = plan.model.name
        report.reason = (
            f"{ALREADY_PROPOSED}: {_where(found.ref, found.commit)} already carries this task's "
            f"change from {base[:12]} (patch {found.patch_hash[:12]}); the task was not run"
        )
        report.extra["already_proposed"] = {"commit": found.commit, "refs": found.ref,
                                            "patch_hash": found.patch_hash}  # fmt: skip
        emit(ev.TaskStarted(model=plan.model.name, workspace="", prompt=""))
        emit(ev.TaskFinished(status="no_changes", exit_code=0, reason=report.reason))
        return report

    def task_run(self, plan: TaskSpec, emit: Emit) -> TaskRun:
        """The task, delivering its patch to a branch when ``outputs.branch`` is set."""
        if self.config is None:
            return TaskRun(plan, self.settings, emit)
        return BranchTaskRun(plan, self.settings, emit, self)

    async def deliver(self, task: TaskRun, report: TaskReport) -> None:
        """Re-check, then commit (see the module docstring); updates ``report``."""
        if report.status is not Status.success or not task.patch.strip():
            return
        assert self.config is not None
        base = self.bases.get(task.plan.name, "")
        try:
            if self.repo is None or not base:
                raise BranchError("the workspace is not in a git repository with a commit")
            if (report.extra.get("patch") or {}).get("redacted"):
                raise BranchError("secrets were masked in the patch: it is not committed")
            if (report.extra.get("patch") or {}).get("omitted"):
                raise BranchError("patch.diff leaves files out: it is not committed")
            values: dict[str, Any] = {
                **task.plan.values, "recipe": self.settings.recipe.name, "task": task.plan.name
            }  # fmt: skip
            branch = _render(self.config.name, values, "outputs.branch.name")
            subject = _render(self.config.commit_message, values, "outputs.branch.commit_message")
            # a few quick git calls, in the loop's thread: nothing here can be half done
            info = self._commit(branch, subject, base, task.patch, report.summary, task.plan)
        except (BranchError, InvalidInput) as err:
            self._failed(task, report, str(err))
            return
        except Exception as err:  # noqa: BLE001 - a delivery bug must not cost the task its patch
            self._failed(task, report, f"{type(err).__name__}: {err}")
            return
        if info.get("already_proposed"):
            report.status, report.exit_code = Status.no_changes, 0
            report.reason = (
                f"{ALREADY_PROPOSED}: {_where(info['refs'], info['commit'])} already carries "
                f"the same change (patch {info['patch_hash'][:12]}); no new commit"
            )
            report.extra["already_proposed"] = info
        else:
            report.extra["branch"] = info

    @staticmethod
    def _failed(task: TaskRun, report: TaskReport, message: str) -> None:
        """``branch_failed``: a warning event, and ``extra.branch_failed`` in result.json."""
        task.emit(ev.WarningEvent(kind="branch_failed", message=message))
        report.extra["branch_failed"] = message

    def _commit(
        self, branch: str, subject: str, base: str, patch: str, summary: str, plan: TaskSpec
    ) -> dict[str, Any]:
        assert self.repo is not None
        patch_hash = self.repo.patch_hash(patch)
        found = self.repo.find_by_hash(patch_hash)
        if found is not None:
            return {"already_proposed": True, "commit": found.commit, "refs": found.ref,
                    "patch_hash": patch_hash}  # fmt: skip
        key = self.key(plan)
        redact = (self.settings.redactor or Redactor.from_environ()).redact
        if redact(branch) != branch:
            raise BranchError("the branch name holds a secret: no branch is made")
        # the message is an output like every other: no secret in clear (the summary may hold one)
        message = commit_message(
            redact(subject), redact(summary), patch_hash=patch_hash, task=key, base=base
        )
        commit = self.repo.commit_patch(
            branch, base, patch, message, task=key, directory=self.directory
        )
        return {"name": branch, "commit": commit, "patch_hash": patch_hash, "base": base}


class BranchTaskRun(TaskRun):
    """A task whose ``task_finished`` event waits for the branch (its status may change)."""

    def __init__(self, plan: TaskSpec, settings: RunSettings, emit: Emit, delivery: Delivery):
        super().__init__(plan, settings, emit)
        self.delivery = delivery

    async def _finish(self, report: TaskReport, duration_ms: int) -> None:
        outer = self.emit
        held: list[ev.TaskFinished] = []

        def hold(event: ev.Event) -> object:
            if isinstance(event, ev.TaskFinished):
                held.append(event)
                return event
            return outer(event)

        self.emit = hold
        try:
            await super()._finish(report, duration_ms)
            await self.delivery.deliver(self, report)
        finally:
            self.emit = outer
            for event in held:
                outer(event.model_copy(update={"status": report.status.value,
                      "exit_code": report.exit_code, "reason": report.reason}))  # fmt: skip


def _where(refs: str, commit: str) -> str:
    """``branch (commit)``: the first branch pointing at the commit, as git log decorates it."""
    names = [r.strip().removeprefix("HEAD -> ") for r in refs.split(",")]
    branches = [
        n.removeprefix("refs/heads/").removeprefix("refs/remotes/")
        for n in names
        if n.startswith(("refs/heads/", "refs/remotes/"))
    ]
    return f"{branches[0]} ({commit[:12]})" if branches else f"commit {commit[:12]}"


def _render(template: str, values: dict[str, Any], where: str) -> str:
    return render(template, values, where=where).strip()
