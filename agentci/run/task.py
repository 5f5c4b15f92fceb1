"""One task from start to end: workspace, setup, the session, and what it changed.

:meth:`TaskRun.run` always returns a :class:`TaskReport` and the task's patch, whatever
ended the task; the runner writes the outputs from them. The task runs from its
:class:`~agentci.spec.TaskSpec` alone; beside it: :mod:`~agentci.run.task_sandbox` (sandboxes
and setup), :mod:`~agentci.run.task_agent` (the session and verify's follow-ups),
:mod:`~agentci.run.task_model` (provider, prices), :mod:`~agentci.run.task_finish` (the report
and ``task_finished``), :mod:`~agentci.run.task_mcp` (MCP servers), :mod:`~agentci.run.settings`
(what the run's tasks share).
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.change.patch import ChangeTracker
from agentci.errors import InvalidInput, StopRun
from agentci.events import types as ev
from agentci.hooks.runner import HookRunner
from agentci.loop.budget import BudgetTracker
from agentci.loop.ledger import open_ledger
from agentci.loop.state import State
from agentci.outcome import Status
from agentci.policy.env import child_env
from agentci.policy.gitconfig import credential_warnings
from agentci.policy.rules import PolicyEngine
from agentci.policy.runtime import forget_workspace_imports
from agentci.policy.sandbox import check_sandbox_mode
from agentci.reports.outdir import refuse_inside_workspace
from agentci.reports.report import TaskReport
from agentci.run.context_files import task_context
from agentci.run.plan import render_prompt
from agentci.run.resume import ResumeRefused, digest, head_commit
from agentci.run.settings import RunSettings
from agentci.run.task_agent import run_agent
from agentci.run.task_finish import finish, stop_event
from agentci.run.task_sandbox import TaskSandboxes
from agentci.run.verify_stage import ChangeCheck
from agentci.run_locks import lock_workspace
from agentci.spec import TaskSpec
from agentci.tempdirs import refuse_temp_inside
from agentci.tools.pick_engine import default_engine
from agentci.workspace import PreparedWorkspace, prepare_workspace

if TYPE_CHECKING:
    from agentci.change.change import Change, Patch
    from agentci.context.memory import ProjectContext
    from agentci.recipe.schema import Workspace

Emit = Callable[[ev.Event], object]


class TaskRun:
    """Runs one :class:`~agentci.spec.TaskSpec`; ``cancel(signal)`` stops it cleanly."""

    def __init__(self, plan: TaskSpec, settings: RunSettings, emit: Emit) -> None:
        self.plan = plan
        self.settings = settings
        self.emit = emit
        self.state = State()
        self.patch = ""
        self.finished: TaskReport | None = None  # the report, once task_finished is emitted
        self.signal_name: str | None = None
        self._work: asyncio.Task[None] | None = None
        self.tracker: ChangeTracker | None = None  # snapshots since the baseline (after setup)
        self.patch_base: str | None = None  # what the patch applies to, when it is not obvious
        self.patching: asyncio.Future[tuple[Change, Patch]] | None = None
        self.ending: asyncio.Future[None] | None = None  # the session_end hooks (task_finish)
        self.patch_taken = False  # the patch was computed and reported (task_finish)
        self.prepared: PreparedWorkspace | None = None  # the workspace, once made
        self.keep_workspace = False  # its work is in no patch: kept, not removed
        #: set by the Runner: a copy or worktree whose work is in the patch stays until the
        #: outputs are written (:attr:`leftover`), kept if patch.diff could not be
        self.defer_cleanup = False
        self.leftover: PreparedWorkspace | None = None
        self.completed = False  # the work ended by itself (no stop, no signal, no error)
        self._announced = False  # task_started was emitted
        self._search_name: str | None = None  # the engine behind glob/grep_search, once chosen
        self.context_files: list[ev.ContextFileInfo] = []  # project context files loaded
        self._workspace: Path | None = None
        self.check: ChangeCheck | None = None  # verify + guards (agentci/verify), once ready
        self.first = True
        self.sandboxes = TaskSandboxes(plan, settings.recipe_path, emit)
        # at the end, before task_finished: the provider (--record's cassette, a context cache)
        self.closers: list[Callable[[], Awaitable[None]]] = []
        self.budget = BudgetTracker(
            plan.budget,
            total=settings.totals,
            model=plan.model,
            ledger=open_ledger(
                plan.budget, settings.recipe_dir, settings.recipe.name or settings.recipe_label
            ),
        )
        self.hooks: HookRunner | None = None  # the recipe's hooks, once compiled
        self.resume_point = settings.resume.get(plan.name)  # --resume: the earlier run's end
        self.refused = False  # --resume refused: the earlier history and patch are kept
        self.resumed = False  # --resume: the earlier patch and history are in place
        # what the conversation depends on (result.json's resume.fingerprint)
        self.fingerprint: dict[str, str | None] = {"model": plan.model.name, "recipe": None}
        if settings.recipe_path is not None and settings.recipe_path.is_file():
            self.fingerprint["recipe"] = digest(settings.recipe_path.read_bytes())

    @property
    def carried(self) -> bool:
        """--resume: the task stopped before it went on from the earlier run (refused,
        cancelled, its setup failed): the earlier history, patch and totals stay its outputs,
        so a later --resume goes on from the same end (docs/resume.md)."""
        point = self.resume_point
        return point is not None and point.continued and not self.resumed

    def cancel(self, signal_name: str) -> None:
        """Stop the model call or tool that is running, or the taking of the patch (the task
        ends ``cancelled``), or the session_end hooks of a task that has ended (its status
        stays; the run ends ``cancelled``)."""
        self.signal_name = self.signal_name or signal_name
        for job in (self._work, self.patching, self.ending):
            if job is not None and not job.done():
                job.cancel()

    async def run(self) -> TaskReport:
        """Run the task and report how it ended (never raises, except a second signal)."""
        started = time.monotonic()
        self.first = self.settings.tasks_started == 0
        self.settings.tasks_started += 1
        report = TaskReport(name=self.plan.name, status=Status.internal_error, exit_code=70)
        workspace = None
        try:
            ws_config, override = self.plan.workspace, self.settings.workspace_override
            if override is not None:
                ws_config = ws_config.model_copy(update={"path": str(override)})
            workspace = self.prepared = await self._prepare(ws_config)
            self._workspace = workspace.path
            if self.signal_name is not None:  # it came while the workspace was made
                raise asyncio.CancelledError
            self.fingerprint["base_commit"] = workspace.base_commit or head_commit(
                workspace.original
            )
            refuse_inside_workspace(self.plan.out_dir, workspace.path)
            refuse_temp_inside(workspace.path)
            if workspace.isolation == "worktree":
                originals = self.settings.originals
                self._check_worktree_base(
                    workspace.base_commit,
                    await asyncio.to_thread(originals.uncommitted, workspace.original),
                )
            elif workspace.isolation == "none":  # one run at a time edits a folder in place
                lock_workspace(workspace.path)
            self._work = asyncio.ensure_future(self._work_on(workspace.path))
            await self.budget.guard_wall(self._work)  # the wall clock cancels the work
            self.completed = True  # success or no_changes: decided once the patch is taken
        except asyncio.CancelledError:
            if self.signal_name is None:
                raise
            self._started("")
            report.status, report.reason = Status.cancelled, f"cancelled by {self.signal_name}"
            self.emit(ev.UserCancelled(signal=self.signal_name))
        except StopRun as stop:
            self._started("")
            report.status, report.reason = Status(stop.status), stop.reason
            self.emit(stop_event(stop))
        except InvalidInput as err:
            self._started("")
            if isinstance(err, ResumeRefused) and self.resume_point is not None:
                self.refused = True  # what the earlier run left stays in the outputs
            report.status, report.reason = Status.invalid_input, str(err)
            self.emit(ev.Error(kind="invalid_input", message=str(err)))
        except Exception as err:  # noqa: BLE001 - any bug ends the task as internal_error
            self._started("")
            report.status, report.reason = Status.internal_error, f"{type(err).__name__}: {err}"
            self.emit(
                ev.Error(
                    kind="internal_error", message=report.reason, traceback=traceback.format_exc()
                )
            )
        finally:
            self._started("")  # the task ended before its prompt was rendered
            for close in self.closers:  # before task_finished: a warning may follow
                await close()
            await self._finish(report, int((time.monotonic() - started) * 1000))
            self.finished = report  # reported: a crash in the cleanup below keeps it
            self.sandboxes.cleanup()
            if workspace is not None and self.keep_workspace:
                await self._keep(workspace)
            elif (
                workspace is not None and self.defer_cleanup and workspace.kept_path and self.patch
            ):
                self.leftover = workspace  # the only copy of the work until patch.diff is written
            elif workspace is not None:  # a worktree's or copy's files: off the event loop
                await asyncio.to_thread(workspace.cleanup)
        return report

    async def _keep(self, workspace: PreparedWorkspace) -> None:
        """Move the copy or worktree to where ``kept_workspace`` says (task_finish); should
        that fail, it stays where it was, also kept, and a warning says so."""
        try:
            await asyncio.to_thread(workspace.keep)
        except Exception as err:  # noqa: BLE001 - the work stays on disk either way
            self.emit(
                ev.WarningEvent(
                    kind="workspace_kept",
                    message=f"the {workspace.isolation} could not be moved ({err}): it is kept at "
                    f"{workspace.path}, not removed",
                )
            )

    async def _prepare(self, config: Workspace) -> PreparedWorkspace:
        """:func:`prepare_workspace` in a worker thread: a worktree's checkout or a copy runs
        while a batch's other tasks go on. Cancelled meanwhile, the workspace is removed once
        it is made."""
        job = asyncio.ensure_future(
            asyncio.to_thread(
                prepare_workspace,
                config,
                base_dir=self.settings.base_dir,
                originals=self.settings.originals,
            )
        )
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(_remove_made)
            raise

    async def _finish(self, report: TaskReport, duration_ms: int) -> None:
        """Fill in the report and say ``task_finished`` (agentci/run/task_finish.py)."""
        await finish(self, report, duration_ms)

    def git_deadline(self, grace: float = 0.0) -> float | None:
        """When the snapshots' git calls must end: with the wall clock (at least ``grace``
        seconds from now, for the final snapshot of a task whose clock ran out); None when no
        wall-clock limit applies (each call then has its own default limit)."""
        limits = self.budget.wall_limits()
        if not limits:
            return None
        return time.monotonic() + max(min(left for _, left, _ in limits), grace)

    def private_dirs(self, workspace: Path) -> tuple[str, ...]:
        """Paths the patch never shows: ``.agentci`` and the outputs folder if it is inside."""
        out = self.plan.out_dir.resolve()
        if out == workspace or not out.is_relative_to(workspace):
            return (".agentci",)
        return (".agentci", out.relative_to(workspace).as_posix())

    def _check_worktree_base(self, commit: str | None, dirty: str) -> None:
        """``isolation: worktree`` starts from HEAD (``commit``): say so when the original has
        more (``dirty``: its uncommitted changes, :meth:`~agentci.workspace.Originals.uncommitted`)."""
        base = f"HEAD {commit[:12]}" if commit else "HEAD"
        self.patch_base = base
        if dirty:
            message = (
                f"the original checkout has uncommitted changes ({dirty}); the agent works on "
                f"{base} and the patch applies to that commit, not to the uncommitted files"
            )
            self.emit(ev.WarningEvent(kind="worktree_base", message=message))

    async def _work_on(self, workspace: Path) -> None:
        """Setup, the snapshot the patch is taken against, then the agent loop."""
        plan = self.plan
        check_sandbox_mode(plan.sandbox)  # under CI, no sandbox is refused before any work
        forget_workspace_imports(workspace)  # agentci's lazy imports never come from the workspace
        env = child_env(plan.policy.env_passthrough)
        hooks = HookRunner(
            plan.hooks,
            workspace=workspace,
            env=env,
            recipe_dir=self.settings.recipe_dir,
            task=plan.name,
            files=self.settings.hook_files,
        )
        self.hooks = hooks
        search = default_engine()
        self._search_name = search.name
        for note in credential_warnings(workspace):
            self.emit(ev.WarningEvent(kind="credentials_in_git_config", message=note))
        await self.sandboxes.setup(workspace, env, hooks.scripts, first=self.first)
        # Protected paths are decided now, after setup (it may have run `git init`).
        policy = PolicyEngine.from_recipe(
            plan.policy, workspace=workspace, recipe_path=self.settings.recipe_path
        )
        policy.protected.reals.extend(hooks.scripts)  # hook scripts: as protected as the recipe
        policy.search_path = env.get("PATH", policy.search_path)  # where the tools' commands are
        sandbox, warning = self.sandboxes.make(
            workspace, policy, plan.policy.network, plan.policy.host_sockets
        )
        self.sandboxes.without(policy, warning)
        if sandbox is None:  # what the agent starts may outlive its command: always walk
            self.settings.unsandboxed = True
        verify_box = None
        if sandbox is not None and plan.verify is not None:
            net, sockets = plan.verify.network, plan.verify.host_sockets
            verify_box = sandbox.but(
                network=plan.policy.network if net is None else net,
                host_sockets=plan.policy.host_sockets if sockets is None else sockets,
            )
        # the baseline verify runs only the checkout's own code in the run's first task, not
        # resumed: only then may its bytecode serve the later runs (agentci/policy/pyc_carry.py)
        self.check = ChangeCheck(
            plan, workspace=workspace, env=env, emit=self.emit, sandbox=verify_box,
            no_progress=plan.loop_detection.no_progress,
            carry_bytecode=self.first and self.resume_point is None,
        )  # fmt: skip
        ready, prompt, context = await self._baseline(workspace)
        if not ready:
            return  # the baseline already passes: nothing to fix, no tokens spent
        await run_agent(self, workspace, env=env, sandbox=sandbox, search=search, policy=policy,
                        hooks=hooks, prompt=prompt, context=context)  # fmt: skip

    async def _baseline(self, workspace: Path) -> tuple[bool, str | None, ProjectContext]:
        """The baseline verify, the prompt and the project context; says ``task_started``.
        Whether the agent has work to do (False: verify already passes), with the prompt."""
        check = self.check
        assert check is not None
        ready = await check.before_agent()
        prompt: str | None = render_prompt(self.plan, extra=check.prompt_vars())
        context = task_context(self.plan, workspace, prompt or "", self.emit)
        self.context_files = [f.info() for f in context.files]
        self._started(prompt or "")
        return ready, prompt, context

    def _started(self, prompt: str) -> None:
        """``task_started``, once, with the rendered prompt — known after setup and the baseline
        verify, whose results it may quote ("" when the task ended before its prompt)."""
        if self._announced:
            return
        self._announced = True
        workspace = str(self._workspace) if self._workspace is not None else ""
        self.emit(
            ev.TaskStarted(
                model=self.plan.model.name,
                workspace=workspace,
                prompt=prompt,
                search_engine=self._search_name,
                context_files=self.context_files,
            )
        )


def _remove_made(job: asyncio.Future[PreparedWorkspace]) -> None:
    """Remove the workspace a cancelled :meth:`TaskRun._prepare` made after all."""
    if not job.cancelled() and job.exception() is None:
        job.result().cleanup()
