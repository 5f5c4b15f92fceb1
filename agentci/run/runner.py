"""A run: one recipe's tasks in order, the outputs, and the one exit code.

Whatever ends the run — success, a failed task, a budget, a signal, a bug — the runner
writes patch, JUnit, result.json and summary, and the last event is ``run_finished``.

The run's end is decided once: the outputs are written by a child process (a large patch takes
seconds to redact), so a signal that comes meanwhile still cancels the run — the child is killed
and the run ends ``cancelled`` with the outputs that could be written. A signal after the run's
report was made and before its writing started (while the loop's worker threads are retired)
makes that report ``cancelled`` before it is written. Once the outputs are written
(:attr:`Runner.committed`), nothing changes the status or exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentci import __version__
from agentci.events import types as ev
from agentci.events.sinks import Emitter, utc_now
from agentci.loop.budget import RunTotals
from agentci.outcome import Status, exit_code_for, run_outcome
from agentci.policy.runtime import moved_runtime
from agentci.providers.registry import is_offline, warm_up
from agentci.reports.child import write_outputs_in_child
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.writer import OPTIONAL_OUTPUTS, write_outputs
from agentci.run.run_end import mark_unwritten, refuse_outputs, run_finished
from agentci.run.start_baseline import keep_start, release_start
from agentci.run.task import RunSettings, TaskRun
from agentci.run.task_resume import carried_report, judge_kept, kept_fingerprint
from agentci.run.workers import LoopWorkers
from agentci.spec import TaskSpec
from agentci.usage import total

if TYPE_CHECKING:
    from agentci.run.delivery import Delivery
    from agentci.workspace import PreparedWorkspace

#: How the outputs are written off the event loop: ``(out_dir, report, patches, redactor,
#: optional) -> the files that could not be written``; cancelling the await stops it.
OutputsWriter = Callable[
    [Path, RunReport, dict[str, str], Redactor, frozenset[str]], Awaitable[list[str]]
]


def new_run_id() -> str:
    """A short unique id for a run."""
    return uuid.uuid4().hex[:12]


def delivery_for(settings: RunSettings, *, skip_if_proposed: bool) -> Delivery | None:
    """The run's :class:`~agentci.run.delivery.Delivery` when the recipe (``outputs.branch``)
    or the command line (``--skip-if-proposed``) asks for one, else None."""
    if settings.recipe.outputs.branch is None and not skip_if_proposed:
        return None
    # deferred: branches and their git plumbing load only for a run that delivers to one
    from agentci.run.delivery import Delivery

    return Delivery(settings, skip_if_proposed=skip_if_proposed)


class Runner:
    """Runs the planned tasks of one recipe and writes the outputs."""

    def __init__(
        self,
        settings: RunSettings,
        plans: list[TaskSpec],
        *,
        out_dir: Path,
        emitter: Emitter,
        redactor: Redactor,
        delivery: Delivery | None = None,
        optional: frozenset[str] = OPTIONAL_OUTPUTS,
        resumed_from: str | None = None,
        writer: OutputsWriter = write_outputs_in_child,
    ) -> None:
        self.settings = settings
        self.writer = writer  # batch: small outputs in a worker thread (agentci/batch/outputs.py)
        self.optional = optional  # report.html, sarif.json: written only when named here
        self.delivery = delivery  # outputs.branch, --skip-if-proposed (run/delivery.py)
        self.plans = plans
        self.out_dir = out_dir
        self.emitter = emitter
        self.redactor = redactor
        self.signal_name: str | None = None
        self.current: TaskRun | None = None
        self.started_at = ""  # ISO-8601 UTC, set when the run starts
        self.committed = False  # the outputs hold the final status: no signal changes it now
        self._writing: asyncio.Future[list[str]] | None = None
        self._said: str | None = None  # the signal the report being written says, if any
        self.reports: list[TaskReport] = []  # the tasks finished so far (a crash keeps them)
        self.patches: dict[str, str] = {}
        #: copies and worktrees whose work is in a patch not yet written (TaskRun.leftover)
        self.leftovers: list[PreparedWorkspace] = []
        self.workers: LoopWorkers | None = None  # the loop's thread pool, when the run owns it
        self._warming: asyncio.Future[None] | None = None  # the SDK's import (_warm_up)
        self.resumed_from = resumed_from  # --resume OUT

    def cancel(self, signal_name: str) -> None:
        """Stop the running task (the tasks not started yet are not run), or the writing of
        the outputs; ignored once the outputs are written."""
        if self.committed:
            return
        self.signal_name = self.signal_name or signal_name
        if self.current is not None:
            self.current.cancel(signal_name)
        if self._writing is not None and not self._writing.done() and self._said is None:
            self._writing.cancel()

    async def run(self) -> RunReport:
        """Run every task, write the outputs, emit ``run_finished``; return the report."""
        started = time.monotonic()
        self.started_at = utc_now()
        recipe = self.settings.recipe
        self.emitter.emit(
            ev.RunStarted(
                recipe=self.settings.recipe_label,
                recipe_name=recipe.name,
                tasks=[p.name for p in self.plans],
                agentci_version=__version__,
                resumed_from=self.resumed_from,
            )
        )
        self._warm_up()
        reports, patches = self.reports, self.patches
        early = self.signal_name is not None
        if self.signal_name is not None:  # it came while the run was set up (run/early.py)
            self.emitter.emit(ev.UserCancelled(signal=self.signal_name))
        if recipe.budget.total is not None and self.settings.totals is None:
            self.settings.totals = RunTotals(recipe.budget.total)
        for plan in self.plans:
            if self.signal_name is not None:
                break
            emit = functools.partial(self.emitter.emit, task=plan.name)
            point = self.settings.resume.get(plan.name)
            if point is not None and point.kept:  # --resume: judged already, carried over
                now = kept_fingerprint(plan, self.settings)
                reports.append(judge_kept(point, now, plan.name, emit))
                patches[plan.name] = point.patch
                continue
            skipped = self.delivery.before_task(plan, emit) if self.delivery else None
            if skipped is not None:
                reports.append(skipped)
                patches[plan.name] = ""
                continue
            task = (
                self.delivery.task_run(plan, emit)
                if self.delivery
                else TaskRun(plan, self.settings, emit)
            )
            self.current = task
            task.defer_cleanup = True
            reports.append(await task.run())
            if task.leftover is not None:
                self.leftovers.append(task.leftover)
            task.budget.release()  # a reservation a cancelled call left on budget.total
            patches[plan.name] = task.patch
        self.current = None
        self.settings.drop_handover()
        # one look: a signal from now on is the report's to say (_finish), not half of it here
        signal_name = self.signal_name
        if signal_name is not None:  # the tasks the signal came before
            if not early and not any(r.status is Status.cancelled for r in reports):
                # it came after a task's end (its session_end hooks, its cleanup) or between two
                # tasks: no task said so, the run does (it ends cancelled all the same)
                self.emitter.emit(ev.UserCancelled(signal=signal_name))
            code = exit_code_for(Status.cancelled, signal_name=signal_name)
            done = {r.name for r in reports}
            for plan in self.plans:
                if plan.name not in done:
                    reason = f"cancelled by {signal_name} before it started"
                    point = self.settings.resume.get(plan.name)
                    if point is not None and (point.kept or point.continued):  # nothing lost
                        reports.append(
                            carried_report(point, plan.name, Status.cancelled, code, reason)
                        )
                        patches[plan.name] = point.patch
                        continue
                    reports.append(TaskReport(plan.name, Status.cancelled, code, reason,
                                              model=plan.model.name))  # fmt: skip
                    patches[plan.name] = ""
        status, code = run_outcome([(r.status, r.exit_code) for r in reports])
        reason = next(
            (f"{r.name}: {r.reason}" for r in reports if r.status == status and r.reason), ""
        )
        if signal_name is not None:
            status, reason = Status.cancelled, f"cancelled by {signal_name}"
            code = exit_code_for(status, signal_name=signal_name)
        report = RunReport(
            run_id=self.emitter.run_id,
            recipe=self.settings.recipe_label,
            recipe_name=recipe.name,
            status=status,
            exit_code=code,
            reason=reason,
            tasks=reports,
            usage=total([r.usage for r in reports]),
            duration_ms=int((time.monotonic() - started) * 1000),
            started_at=self.started_at,
            resumed_from=self.resumed_from,
        )
        await self._finish(report, patches, signal_name)
        return report

    async def _settle_leftovers(self, failed: list[str]) -> None:
        """The outputs are written: remove the copies and worktrees whose work is in them; when
        one could not be written (``failed``), keep them instead (moved where ``kept_path``
        says) and say where, on stderr and in a ``workspace_kept`` warning."""
        if "patch.diff" not in failed:
            await asyncio.to_thread(release_start, self.settings)
        elif kept := keep_start(self.settings):
            print(f"agentci: patch.diff could not be written; {kept}", file=sys.stderr)
        leftovers, self.leftovers = self.leftovers, []
        for workspace in leftovers:
            if not failed:
                await asyncio.to_thread(workspace.cleanup)
                continue
            where = workspace.kept_path
            try:
                await asyncio.to_thread(workspace.keep)
            except Exception:  # noqa: BLE001 - it stays where it was, not removed
                where = workspace.path
            message = (
                f"the outputs could not all be written ({'; '.join(failed)}): the "
                f"{workspace.isolation} holding the agent's work is kept at {where}"
            )
            print(f"agentci: {message}", file=sys.stderr)
            self.emitter.emit(ev.WarningEvent(kind="workspace_kept", message=message))

    def _warm_up(self) -> None:
        """Import the live models' SDK in a worker thread, so that it overlaps the workspace,
        setup and the baseline verify instead of delaying the first request; then, when the
        run writes report.html, the page's renderer, which then loads while the run waits for
        the model rather than after its last answer (the writer, forked, inherits it). Not for
        a task whose verify may end it before any model call (``skip_if_passing``: a pre-commit
        hook on a clean file would pay for an SDK it never uses)."""
        models = [
            name
            for plan in self.plans
            if plan.verify is None or not plan.verify.skip_if_passing
            for name in (plan.model.name, *plan.model.fallback_names())
        ]
        if self.workers is None or all(is_offline(name) for name in models):
            return
        # errors are left for the first call, which imports the SDK again
        page = "report.html" in self.optional
        self._warming = asyncio.get_running_loop().run_in_executor(None, _warm, models, page)

    async def _finish(self, report: RunReport, patches: dict[str, str], said: str | None) -> None:
        """Write the outputs off the event loop, then ``run_finished`` (see the module doc);
        ``said``: the signal the report was made with (its status says it already)."""
        out, rd = self.out_dir, self.redactor
        moved = moved_runtime()
        if moved:  # its lazy imports (the outputs writer's) would run the agent's modules
            refuse_outputs(report, moved, self.emitter)
            await self._settle_leftovers(["patch.diff"])
            self.committed = True
            self.emitter.emit(run_finished(report))
            return
        if self.workers is not None:  # so the writer can fork (agentci/run/workers.py)
            await self.workers.retire()
        late = self.signal_name if said is None else None
        if late is not None:  # it came once the report was made: the report says it now
            report.status = Status.cancelled
            report.exit_code = exit_code_for(Status.cancelled, signal_name=late)
            report.reason = f"cancelled by {late} before the outputs were written"
            self.emitter.emit(ev.UserCancelled(signal=late))
        before = self._said = said or late  # a signal the run has already ended on (and reported)
        self._writing = asyncio.ensure_future(self.writer(out, report, patches, rd, self.optional))
        try:
            failed = await self._writing
            if before is None and self.signal_name is not None:  # it ended the writer first
                raise asyncio.CancelledError
        except asyncio.CancelledError:
            if self.signal_name is None or before is not None:
                raise
            report.status = Status.cancelled
            report.exit_code = exit_code_for(Status.cancelled, signal_name=self.signal_name)
            report.reason = f"cancelled by {self.signal_name} while the outputs were written"
            self.emitter.emit(ev.UserCancelled(signal=self.signal_name))
            failed = write_outputs(
                out, report, None, rd, step_summary=False, optional=self.optional
            )
        finally:
            self._writing = None
        if failed and report.status is not Status.cancelled:
            mark_unwritten(report, failed, self.emitter)
            with contextlib.suppress(Exception):
                write_outputs(out, report, None, rd, step_summary=False, optional=self.optional)
        await self._settle_leftovers(failed)
        self.committed = True
        self.emitter.emit(run_finished(report))


def _warm(models: list[str], page: bool) -> None:
    with contextlib.suppress(Exception):
        warm_up(models)
    if page:
        with contextlib.suppress(Exception):
            # deferred: the page's renderer loads only for a run that writes it
            from agentci.reports.html_report import warm_up as warm_page

            warm_page()
