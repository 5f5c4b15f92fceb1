"""``agentci batch``: many tasks, N at a time, in one process.

Each task runs as one asyncio task of this process — the :class:`~agentci.run.runner.Runner`
of a one-task run, with its own event log, outputs and output lock in
``<out>/<recipe>/<task>/`` — at most ``jobs`` at once (a semaphore). Why not one child process
per task:

* **Budgets**: ``budget.total`` must hold across tasks running at once. In one event loop, the
  check before a call and its reservation happen with no ``await`` between them
  (:mod:`agentci.loop.totals`); across processes it would need a lock server.
* **Memory and CPU**: the work is waiting (model calls, tests in subprocesses). One interpreter
  imports google-genai once (about 60 MB) instead of once per task; the CPU-heavy parts
  already leave the event loop (git snapshots in threads and git processes, the outputs
  written by a forked child, tools in their own processes), so 16 tasks fit the 2 cores of a CI
  runner (bench/bench_batch.py).
* **Signals**: one handler cancels every task (:meth:`BatchRunner.cancel`); each task writes
  its outputs as a cancelled single run does, then the merged outputs are written.
* **Locks**: the per-process locks of the output folders and of in-place workspaces
  (``agentci.reports.outdir``) still keep a *second* agentci process away; inside the batch,
  tasks that share a workspace (or a repository, or one's folder holds the other's) are given
  their own git worktree instead
  (:func:`isolate`), so they never see each other's edits.

The run's exit code is the worst task's (``agentci.outcome.run_outcome``).

**An outage stops the batch.** Once a task ends ``provider_unavailable`` (the model API stayed
unavailable after its retries), no new task starts: each would spend its own retries against
the same outage. The tasks not started are listed in the merged result's ``not_run``, with the
reason (``provider_unavailable in task <key>``) in ``not_run_reasons``; the tasks already
running finish as they do. ``--fail-fast`` stops the batch the same way after any failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import Any

from agentci import __version__
from agentci.batch.merge import TaskOutput, read_task_output, write_merged
from agentci.batch.outputs import write_task_outputs
from agentci.batch.progress import Board
from agentci.batch.select import BatchTask
from agentci.errors import InvalidInput
from agentci.events import types as ev
from agentci.events.console import GitHubAnnotationsSink
from agentci.events.sinks import Emitter, JsonlSink, Sink, utc_now
from agentci.hooks.private import HookFiles
from agentci.loop.totals import RunTotals
from agentci.outcome import Status, exit_code_for, is_retryable
from agentci.providers.registry import is_offline, warm_up
from agentci.recipe.schema import Recipe
from agentci.reports.outdir import prepare_out_dir, release_reserve
from agentci.reports.redact import Redactor, neutralise_workflow_commands
from agentci.reports.report import RunReport, TaskReport
from agentci.run.resume import ResumePoint
from agentci.run.run_end import finish_run
from agentci.run.runner import Runner, delivery_for, new_run_id
from agentci.run.task import RunSettings
from agentci.run_locks import overlapping, workspace_root
from agentci.workspace import Originals, ensure_git


def isolate(tasks: list[BatchTask], base_dir: Path) -> tuple[dict[str, Recipe], list[str]]:
    """Each recipe of the batch, with ``isolation: worktree`` (``copy`` outside a git
    repository) when its tasks share an in-place workspace with another task — of the batch,
    or of the recipe (so a shard of a recipe is isolated as the whole recipe would be); and a
    note per recipe changed. Workspaces are shared when they are in one repository, or one lies
    inside the other (:func:`~agentci.run_locks.workspace_root`): a recipe on ``.`` and
    one on ``sub`` would edit one tree."""

    def where(t: BatchTask) -> Path:
        return (base_dir / t.recipe.workspace.path).resolve()

    roots = [workspace_root(where(t)) for t in tasks]
    recipes: dict[str, Recipe] = {}
    notes = []
    for i, t in enumerate(tasks):
        recipe = recipes.setdefault(t.recipe.name, t.recipe)
        ws = recipe.workspace
        shared = len(t.recipe.tasks or []) > 1 or any(
            overlapping(roots[i], other) for j, other in enumerate(roots) if j != i
        )
        if ws.isolation != "none" or not shared or recipe is not t.recipe:
            continue
        path = where(t)
        isolation = "worktree" if path.is_dir() and ensure_git(path) is not None else "copy"
        recipes[t.recipe.name] = recipe.model_copy(
            update={"workspace": ws.model_copy(update={"isolation": isolation})}
        )
        notes.append(
            f"{recipe.name}: tasks share the workspace {path} (or its repository): each task "
            f"gets its own isolation: {isolation}"
        )
    return recipes, notes


class BatchRunner:
    """Runs a batch (see the module docstring); ``cancel(signal)`` stops every task."""

    def __init__(
        self,
        tasks: list[BatchTask],
        *,
        out_dir: Path,
        jobs: int,
        board: Board,
        redactor: Redactor,
        base_dir: Path,
        fail_fast: bool = False,
        skip_if_proposed: bool = False,
        trace: Any = None,
        resume: dict[str, dict[str, ResumePoint]] | None = None,
        extra_outputs: frozenset[str] | None = None,
    ) -> None:
        self.tasks = tasks
        self.extra_outputs = extra_outputs  # --outputs; None: each recipe's outputs.extra
        self.out_dir = out_dir
        self.jobs = jobs
        self.board = board
        self.redactor = redactor
        self.base_dir = base_dir
        self.fail_fast = fail_fast
        self.skip_if_proposed = skip_if_proposed
        self.trace = trace  # agentci.events.otel.BatchTrace: one run span, a task span each
        self.recipes, self.notes = isolate(tasks, base_dir)
        self.totals = {
            name: RunTotals(r.budget.total)
            for name, r in self.recipes.items()
            if r.budget.total is not None
        }
        self.hook_files = {name: HookFiles() for name in self.recipes}
        self.provider_state: dict[str, Any] = {}  # shared by the run's providers
        self.originals = Originals()  # the original checkouts' HEAD and status, read once
        self.signal_name: str | None = None
        self.committed = False  # the merged outputs are written: no signal changes them
        self.running: dict[str, Runner] = {}
        self.failed: str | None = None  # --fail-fast: the first task that failed
        self.outage: str | None = None  # the first task that found the model API unavailable
        self.not_run: dict[str, str] = {}  # task key → why it was not started
        self.started_at = ""
        self.resume = resume or {}  # --resume: each task's earlier run, by task key

    def cancel(self, signal_name: str) -> None:
        """Stop every running task; the tasks not started yet end ``cancelled`` at once."""
        if self.committed:
            return
        self.signal_name = self.signal_name or signal_name
        for runner in list(self.running.values()):
            runner.cancel(signal_name)

    async def run(self) -> dict[str, Any]:
        """Run every task, write the merged outputs; return the merged result."""
        self.started_at = utc_now()
        models = [
            n for t in self.tasks for n in (t.plan.model.name, *t.plan.model.fallback_names())
        ]
        if not all(is_offline(n) for n in models):
            # the SDK's import (about a second) overlaps the first tasks' workspaces and setup
            asyncio.get_running_loop().run_in_executor(None, warm_up, models)
        slots = asyncio.Semaphore(self.jobs)
        outputs = await asyncio.gather(*(self._one(t, slots) for t in self.tasks))
        done = [o for o in outputs if o is not None]
        release_reserve(self.out_dir)  # the space kept for the merged files
        result = write_merged(self.out_dir, done, self.not_run)
        self.committed = True
        return result

    async def _one(self, task: BatchTask, slots: asyncio.Semaphore) -> TaskOutput | None:
        async with slots:
            if self.signal_name is None and (why := self._why_not_start()) is not None:
                self.not_run[task.key] = why  # nothing new starts
                return None

            # the batch's own folder pruned agentci's leftover temp folders already
            out = prepare_out_dir(self.out_dir / task.folder, reserve=True, prune=False)
            sinks: list[Sink] = [JsonlSink(out / "events.jsonl", redact=self.redactor.redact_json),
                                 self.board.sink(task.key)]  # fmt: skip
            if self.board.mode == "github":
                sinks.append(self._annotations())
            if self.trace is not None:
                sinks.append(self.trace.task_sink())
            emitter = Emitter(new_run_id(), sinks)
            try:
                if self.signal_name is not None:
                    self._not_started(task, out, emitter)
                else:
                    await self._run(task, out, emitter)
            finally:
                emitter.close()
            output = _read(out, task)
            if int(output.task.get("exit_code") or 0) != 0 and self.fail_fast:
                self.failed = self.failed or task.key
            if is_retryable(str(output.task.get("status"))):
                self.outage = self.outage or task.key
            return output

    def _why_not_start(self) -> str | None:
        """Why a task must not start now (None: it may): the model API was found unavailable
        (its retries were spent once; every later task would spend them again), or a task
        failed under ``--fail-fast``."""
        if self.outage is not None:
            return f"provider_unavailable in task {self.outage}"
        if self.failed is not None:
            return f"--fail-fast: task {self.failed} failed"
        return None

    def _annotations(self) -> Any:
        """GitHub annotations (``::error::`` …) of a task, on stdout."""

        def sanitize(text: str) -> str:
            return neutralise_workflow_commands(self.redactor.redact(text))

        return GitHubAnnotationsSink(sys.stdout, sanitize=sanitize)

    async def _run(self, task: BatchTask, out: Path, emitter: Emitter) -> None:
        recipe = self.recipes[task.recipe.name]
        settings = RunSettings(
            recipe=recipe,
            recipe_path=task.recipe_path.resolve(),
            base_dir=self.base_dir,
            totals=self.totals.get(recipe.name),
            redactor=self.redactor,
            provider_state=self.provider_state,
            originals=self.originals,
            hook_files=self.hook_files[recipe.name],
            resume=self.resume.get(task.key, {}),
        )
        # the task works where the isolated recipe says (its spec was planned from the recipe as written)
        plan = dataclasses.replace(task.plan, out_dir=out, workspace=recipe.workspace)
        delivery = delivery_for(settings, skip_if_proposed=self.skip_if_proposed)
        earlier = next(iter(settings.resume.values()), None)
        resumed_from = str(earlier.source) if earlier is not None else None
        extra = self.extra_outputs
        runner = Runner(settings, [plan], out_dir=out, emitter=emitter, redactor=self.redactor,
                        delivery=delivery, resumed_from=resumed_from,
                        writer=write_task_outputs,
                        optional=frozenset(recipe.outputs.extra) if extra is None else extra)  # fmt: skip
        self.running[task.key] = runner
        try:
            await runner.run()
        finally:
            del self.running[task.key]

    def _not_started(self, task: BatchTask, out: Path, emitter: Emitter) -> None:
        """A task the signal came before: its outputs say so."""
        signal = self.signal_name or "SIGTERM"
        code = exit_code_for(Status.cancelled, signal_name=signal)
        reason = f"cancelled by {signal} before it started"
        emitter.emit(ev.RunStarted(recipe=str(task.recipe_path.resolve()),
                     recipe_name=task.recipe.name, tasks=[task.plan.name],
                     agentci_version=__version__))  # fmt: skip
        emitter.emit(ev.UserCancelled(signal=signal), task=task.plan.name)
        report = RunReport(
            run_id=emitter.run_id,
            recipe=str(task.recipe_path.resolve()),
            recipe_name=task.recipe.name,
            status=Status.cancelled,
            exit_code=code,
            reason=reason,
            tasks=[
                TaskReport(
                    task.plan.name, Status.cancelled, code, reason, model=task.plan.model.name
                )
            ],  # fmt: skip
            started_at=utc_now(),
        )
        finish_run(report, {task.plan.name: ""}, out_dir=out, emitter=emitter,
                   redactor=self.redactor)  # fmt: skip


def _read(out: Path, task: BatchTask) -> TaskOutput:
    """The task's outputs; when its result.json cannot be read (a full disk), an
    ``internal_error`` entry, so the merged outputs still list it."""
    try:
        return read_task_output(out)
    except InvalidInput as err:
        entry = {"name": task.plan.name, "status": "internal_error", "exit_code": 70,
                 "reason": f"its outputs could not be read: {err}"}  # fmt: skip
        return TaskOutput(out, {"recipe_name": task.recipe.name, **entry, "tasks": [entry]})
