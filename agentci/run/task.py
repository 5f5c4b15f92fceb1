"""One task from start to end: workspace, setup, the session, and what it changed.

:meth:`TaskRun.run` always returns a :class:`TaskReport` and the task's patch, whatever
ended the task; the runner writes the outputs from them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.change.patch import ChangeTracker, worktree_base
from agentci.context.loop_detection import LoopDetector
from agentci.errors import (
    Blocked,
    BudgetExhausted,
    GitWouldBlock,
    HookStopped,
    InvalidInput,
    StopRun,
)
from agentci.events import types as ev
from agentci.hooks.loop_stages import session_end
from agentci.hooks.private import HookFiles
from agentci.hooks.runner import HookRunner
from agentci.loop.budget import BudgetTracker, RunTotals
from agentci.loop.chat import Chat
from agentci.loop.meter import PriceFn
from agentci.loop.session import Session
from agentci.loop.state import State
from agentci.outcome import Status, exit_code_for
from agentci.policy.env import child_env
from agentci.policy.gitconfig import warn_credentials
from agentci.policy.rules import PolicyEngine
from agentci.policy.sandbox import bwrap_problem, check_sandbox_mode, make_sandbox
from agentci.policy.unsandboxed import FALLBACK_NOTE, secrets_warning
from agentci.process import run_process
from agentci.providers import make_provider
from agentci.providers.base import Provider
from agentci.providers.pricing import cost_for
from agentci.providers.recording import RecordingProvider
from agentci.recipe.prompt_recipe import recipe_label
from agentci.recipe.schema import Recipe
from agentci.reports.change_report import report_change
from agentci.reports.hook_facts import hook_facts
from agentci.reports.outdir import lock_workspace, refuse_inside_workspace
from agentci.reports.redact import Redactor
from agentci.reports.report import TaskReport
from agentci.run.plan import TaskPlan
from agentci.run.prompting import task_context, task_system, task_tools
from agentci.run.verify_stage import ChangeCheck
from agentci.tools.base import ToolContext
from agentci.tools.mcp.launch import referenced
from agentci.tools.mcp.servers import McpServers
from agentci.tools.pick_engine import default_engine
from agentci.tools.scheduler import Scheduler
from agentci.tools.truncation import SavedOutputs
from agentci.verify.kept import keep_ignored
from agentci.workspace import prepare_workspace

if TYPE_CHECKING:
    from agentci.change.change import Change, Patch
    from agentci.change.patch import ChangeTracker
    from agentci.hooks.runner import HookRunner
    from agentci.policy.rules import PolicyEngine
    from agentci.policy.sandbox import Sandbox
    from agentci.reports.redact import Redactor
    from agentci.run.verify_stage import ChangeCheck
    from agentci.tools.base import Tool

Emit = Callable[[ev.Event], object]


#: Seconds the final snapshot (the patch) gets at least, even when the wall clock has run out.
FINAL_SNAPSHOT_SECONDS = 30.0


@dataclass
class RunSettings:
    """What every task of a run shares: the recipe, where it came from, the CLI's choices."""

    recipe: Recipe
    recipe_path: Path | None  # None: the built-in recipe of `agentci run --prompt`
    base_dir: Path  # the folder workspace.path is relative to (the working directory)
    workspace_override: Path | None = None
    record: Path | None = None
    provider_factory: Callable[[TaskPlan], Provider] | None = None  # in-process model (tests)
    totals: RunTotals | None = None  # budget.total: what earlier tasks of the run used
    redactor: Redactor | None = None  # masks secrets in the patch (default: from the environment)
    provider_state: dict[str, Any] = field(default_factory=dict)  # shared by the run's providers
    tasks_started: int = 0  # setup of a later task runs in the sandbox (agent work is there)
    hook_files: HookFiles = field(default_factory=HookFiles)  # hooks' private folder, at start

    @property
    def recipe_dir(self) -> Path:
        """The folder files of the recipe are relative to (the working directory: built-in)."""
        return self.recipe_path.parent if self.recipe_path is not None else self.base_dir

    @property
    def recipe_label(self) -> str:
        """The recipe as the outputs name it."""
        return recipe_label(self.recipe_path)


class TaskRun:
    """Runs one :class:`TaskPlan`; ``cancel(signal)`` stops it cleanly."""

    def __init__(self, plan: TaskPlan, settings: RunSettings, emit: Emit) -> None:
        self.plan = plan
        self.settings = settings
        self.emit = emit
        self.state = State()
        self.patch = ""
        self.finished: TaskReport | None = None  # the report, once task_finished is emitted
        self.signal_name: str | None = None
        self._work: asyncio.Task[None] | None = None
        self.tracker: ChangeTracker | None = None  # snapshots since the baseline (after setup
        # and the baseline verify)
        self.patch_base: str | None = None  # what the patch applies to, when it is not obvious
        self._patching: asyncio.Future[tuple[Change, Patch]] | None = None
        self._completed = False  # the work ended by itself (no stop, no signal, no error)
        self._announced = False  # task_started was emitted
        self._search_name: str | None = None  # the engine behind glob/grep_search, once chosen
        self.context_files: list[ev.ContextFileInfo] = []  # project context files loaded
        self._workspace: Path | None = None
        self.check: ChangeCheck | None = None  # verify + guards (agentci/verify), once ready
        self.first = True
        self.sandboxes: list[Sandbox] = []  # their placeholders go when the task ends
        self.sandbox_note = ""  # why the agent's commands ran without a sandbox (summary.md)
        self.budget = BudgetTracker(plan.budget, total=settings.totals, model=plan.model)
        self.hooks: HookRunner | None = None  # the recipe's hooks, once compiled

    def cancel(self, signal_name: str) -> None:
        """Stop the model call or tool that is running, or the taking of the patch; the task
        ends ``cancelled``."""
        self.signal_name = self.signal_name or signal_name
        for job in (self._work, self._patching):
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
            ws_config, override = self.settings.recipe.workspace, self.settings.workspace_override
            if override is not None:
                ws_config = ws_config.model_copy(update={"path": str(override)})
            workspace = prepare_workspace(ws_config, base_dir=self.settings.base_dir)
            self._workspace = workspace.path
            refuse_inside_workspace(self.plan.out_dir, workspace.path)
            if workspace.isolation == "worktree":
                self._check_worktree_base(workspace.original)
            elif workspace.isolation == "none":  # one run at a time edits a folder in place
                lock_workspace(workspace.path)
            self._work = asyncio.ensure_future(self._work_on(workspace.path))
            await self.budget.guard_wall(self._work)  # the wall clock cancels the work
            self._completed = True  # success or no_changes: decided once the patch is taken
        except asyncio.CancelledError:
            if self.signal_name is None:
                raise
            self._started("")
            report.status, report.reason = Status.cancelled, f"cancelled by {self.signal_name}"
            self.emit(ev.UserCancelled(signal=self.signal_name))
        except StopRun as stop:
            self._started("")
            report.status, report.reason = Status(stop.status), stop.reason
            self._emit_stop(stop)
        except InvalidInput as err:
            self._started("")
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
            await self._finish(report, started)
            self.finished = report  # reported: a crash in the cleanup below keeps it
            for box in self.sandboxes:
                box.cleanup()
            if workspace is not None:
                workspace.cleanup()
        return report

    def _git_deadline(self, grace: float = 0.0) -> float | None:
        """When the snapshots' git calls must end: with the wall clock (at least ``grace``
        seconds from now, for the final snapshot of a task whose clock ran out); None when no
        wall-clock limit applies (each call then has its own default limit)."""
        limits = self.budget.wall_limits()
        if not limits:
            return None
        return time.monotonic() + max(min(left for _, left, _ in limits), grace)

    def _excluded(self, workspace: Path) -> tuple[str, ...]:
        """Paths the patch never shows: ``.agentci`` and the outputs folder if it is inside."""
        out = self.plan.out_dir.resolve()
        try:
            inside = out.relative_to(workspace)
        except ValueError:
            return (".agentci",)
        return (".agentci", inside.as_posix()) if inside.parts else (".agentci",)

    def _emit_stop(self, stop: StopRun) -> None:
        """The event that says why the loop stopped (cancellation is asyncio's, see run)."""
        if isinstance(stop, HookStopped):
            self.emit(ev.AgentExecutionStopped(reason=stop.reason))
        elif isinstance(stop, BudgetExhausted):
            self.emit(
                ev.BudgetExhaustedEvent(
                    limit=stop.limit, used=stop.used, cap=stop.cap, reason=stop.reason
                )
            )
        elif isinstance(stop, Blocked):
            self.emit(ev.AgentExecutionBlocked(reason=stop.reason))
        else:
            self.emit(ev.Error(kind=stop.status, message=stop.reason))

    def _finished_status(self, changed: bool) -> tuple[Status, str]:
        verdict = self.check.verdict() if self.check is not None else None
        if verdict is not None:  # verify failed / regressed / guard broken, or nothing to fix
            return verdict
        if changed:
            return Status.success, ""
        return Status.no_changes, "the model finished without changing any file"

    def _check_worktree_base(self, original: Path) -> None:
        """``isolation: worktree`` starts from HEAD: say so when the original has more."""
        base, dirty = worktree_base(original)
        self.patch_base = base
        if dirty:
            self.emit(
                ev.WarningEvent(
                    kind="worktree_base",
                    message=f"the original checkout has uncommitted changes ({dirty}); the "
                    f"agent works on {base} and the patch applies to that commit, not to the "
                    "uncommitted files",
                )
            )

    async def _finish(self, report: TaskReport, started: float) -> None:
        """Fill in the report from the state and the workspace, whatever happened. A signal
        while the patch is taken (seconds for a large change) cancels the task."""
        state = self.state
        report.turns = state.turns
        report.tool_calls = state.tool_calls
        report.usage = state.usage.model_copy()
        report.summary, report.output = state.final_text, state.output
        report.context_files = [f.model_dump() for f in self.context_files]
        report.model = self.plan.model.name
        report.duration_ms = int((time.monotonic() - started) * 1000)
        if self.sandbox_note:
            report.extra["no_sandbox"] = self.sandbox_note
        tracker = self.tracker
        if tracker is not None:
            tracker.baseline.deadline = self._git_deadline(FINAL_SNAPSHOT_SECONDS)
            try:
                if self.check is not None:  # reverts what the guards refuse, before the patch
                    await self.check.finish(report)
                self._patching = asyncio.ensure_future(_change_and_patch(tracker))
                change, patch = await self._patching
                report.changed_files = change.files
                if self._completed:
                    report.status, report.reason = self._finished_status(not change.empty)

                redactor = self.settings.redactor
                self.patch = report_change(
                    report, change, patch, redactor, self.patch_base, self.emit
                )
            except asyncio.CancelledError:
                if self.signal_name is None:
                    raise
                if report.status is not Status.cancelled:
                    report.status = Status.cancelled
                    report.reason = f"cancelled by {self.signal_name} while the patch was taken"
                    self.emit(ev.UserCancelled(signal=self.signal_name))
            except GitWouldBlock as stop:  # the workspace cannot be snapshotted: no patch
                if self._completed:
                    report.status, report.reason = Status(stop.status), stop.reason
                self._emit_stop(stop)
            except Exception as err:  # noqa: BLE001 - a broken workspace must not lose the report
                self.emit(
                    ev.Error(
                        kind="internal_error",
                        message=f"could not compute the patch: {err}",
                        traceback=traceback.format_exc(),
                    )
                )
                if self._completed:
                    report.status, report.reason = Status.internal_error, str(err)
            finally:
                tracker.cleanup()
        else:
            if self.check is not None:
                await self.check.finish(report)
            if self._completed:
                report.status, report.reason = self._finished_status(False)
        report.exit_code = exit_code_for(
            report.status, allow_no_changes=self.plan.allow_no_changes, signal_name=self.signal_name
        )
        await self._session_end(report)
        self.emit(
            ev.TaskFinished(
                status=report.status.value,
                exit_code=report.exit_code,
                reason=report.reason,
                turns=report.turns,
                changed_files=report.changed_files,
                usage=report.usage,
            )
        )

    async def _session_end(self, report: TaskReport) -> None:
        """The session_end hooks of a task whose session started, however it ended; they
        observe (a failure is a warning), and a bug in running them loses no report."""
        try:
            events = await session_end(
                self.hooks,
                status=report.status.value,
                exit_code=report.exit_code,
                reason=report.reason,
                turns=report.turns,
                changed_files=report.changed_files,
            )
        except Exception as err:  # noqa: BLE001 - the task's end is reported whatever happens
            events = [ev.WarningEvent(kind="hook_warning", message=f"session_end hooks: {err}")]
        for event in events:
            self.emit(event)
        if self.hooks is not None and self.hooks.results:
            report.extra["hooks"] = hook_facts(self.hooks.results)

    async def _work_on(self, workspace: Path) -> None:
        """Setup, the snapshot the patch is taken against, then the agent loop."""
        recipe = self.settings.recipe
        plan = self.plan
        check_sandbox_mode(recipe.sandbox)  # under CI, no sandbox is refused before any work
        env = child_env(recipe.policy.env_passthrough)
        hooks = HookRunner(
            recipe.hooks,
            workspace=workspace,
            env=env,
            recipe_dir=self.settings.recipe_dir,
            task=plan.name,
            files=self.settings.hook_files,
        )
        self.hooks = hooks
        search = default_engine()
        self._search_name = search.name
        warn_credentials(workspace, self.emit)
        await self._setup(workspace, env, hooks.scripts)
        # Protected paths are decided now, after setup (it may have run `git init`).
        policy = PolicyEngine.from_recipe(
            recipe.policy, workspace=workspace, recipe_path=self.settings.recipe_path
        )
        policy.protected.reals.extend(hooks.scripts)  # hook scripts: as protected as the recipe
        policy.search_path = env.get("PATH", policy.search_path)  # where the tools' commands are
        sandbox, warning = self._sandbox(
            workspace, policy, recipe.policy.network, recipe.policy.host_sockets
        )
        self._no_sandbox(policy, warning)
        verify_box = None
        if sandbox is not None and plan.verify is not None:
            net, sockets = plan.verify.network, plan.verify.host_sockets
            verify_box = sandbox.but(
                network=recipe.policy.network if net is None else net,
                host_sockets=recipe.policy.host_sockets if sockets is None else sockets,
            )
        self.check = ChangeCheck(
            plan, workspace=workspace, env=env, emit=self.emit, sandbox=verify_box,
            no_progress=recipe.loop_detection.no_progress,
        )  # fmt: skip
        tools, answer = task_tools(plan, self.state, recipe.tools.commands)
        ctx = ToolContext(
            workspace=workspace,
            env=env,
            timeout_seconds=plan.budget.tool_timeout_seconds,
            sandbox=sandbox,
            private_dirs=self._excluded(workspace),
            search=search,
            outputs=SavedOutputs.for_task(plan.out_dir, recipe.context, self.settings.redactor),
        )

        def session() -> Session:
            """Built once the baseline verify has failed: only then is the model needed (a
            missing key does not stop a run whose work is already done)."""
            return Session(
                chat=Chat(self._provider(), plan.model),
                scheduler=Scheduler(tools, policy, ctx, hooks if hooks else None),
                tools=[t.spec() for t in tools.values()],
                system=task_system(plan, workspace, tools),
                model=plan.model,
                budget=self.budget,
                price=self._price_fn(),
                state=self.state,
                context=recipe.context,
                loops=LoopDetector(recipe.loop_detection),
                answer=answer,
            )

        async with self._mcp_servers(workspace, env, sandbox, tools):
            await self._run_checked(session, workspace)

    @contextlib.asynccontextmanager
    async def _mcp_servers(
        self, workspace: Path, env: dict[str, str], sandbox: Sandbox | None, tools: dict[str, Tool]
    ) -> AsyncIterator[None]:
        """The recipe's MCP servers, running (their tools added to ``tools``) for the block:
        started before any model call (one that cannot start is ``invalid_input``), stopped
        on every way out (docs/mcp.md)."""
        servers = self.settings.recipe.tools.mcp_servers
        if not servers:
            yield
            return
        redactor = self.settings.redactor or Redactor.from_environ(referenced(servers))
        async with McpServers.start(
            servers,
            workspace=workspace,
            tool_env=env,
            sandbox=sandbox,
            call_timeout=self.plan.budget.tool_timeout_seconds,
            warn=lambda text: self.emit(ev.WarningEvent(kind="mcp_tool_skipped", message=text)),
            redact=redactor.redact,
            taken=set(tools),
        ) as started:
            tools.update(started.tools)
            yield

    async def _run_checked(self, new_session: Callable[[], Session], workspace: Path) -> None:
        """Baseline verify, the patch baseline, then the session; after each, guards + verify
        decide whether the model gets a follow-up prompt or the task is done (docs/verify.md)."""
        check = self.check
        assert check is not None
        ready = await check.before_agent()
        prompt: str | None = self.plan.render_prompt(extra=check.prompt_vars())
        context = task_context(self.plan, workspace, prompt or "", self.emit)
        self.context_files = [f.info() for f in context.files]
        self._started(prompt or "")
        if not ready:
            return  # the baseline already passes: nothing to fix, no tokens spent
        session = new_session()
        self.tracker = await ChangeTracker.start(
            workspace, exclude=self._excluded(workspace), deadline=self._git_deadline()
        )
        if self.plan.guards.allowed_paths is not None:  # ignored files are put back after
            await asyncio.to_thread(keep_ignored, self.tracker.baseline)
        check.tracker = self.tracker
        block = context.block()  # the project context goes with the first prompt only
        while prompt is not None:
            self.tracker.agent_started()
            async for event in session.run(prompt, context=block):
                self.emit(event)
            prompt, block = await check.after_agent(), ""

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

    def _provider(self) -> Provider:
        if self.settings.provider_factory is not None:
            return self.settings.provider_factory(self.plan)

        provider = make_provider(
            self.plan.model,
            base_dir=self.settings.recipe_dir,
            shared=self.settings.provider_state,
        )
        if self.settings.record is not None:
            return RecordingProvider(provider, self._record_path(self.settings.record))
        return provider

    def _record_path(self, record: Path) -> Path:
        """``--record FILE``; with several tasks, one cassette per task (FILE.<task>.jsonl)."""
        if len(self.settings.recipe.tasks or []) > 1:
            return record.with_name(f"{record.stem}.{self.plan.name}{record.suffix or '.jsonl'}")
        return record

    def _price_fn(self) -> PriceFn:
        config = self.plan.model
        return lambda model, usage: cost_for(model, usage, config.pricing_for(model))

    def _no_sandbox(self, policy: PolicyEngine, fell_back: str | None) -> None:
        """Without a sandbox: ``auto`` that fell back shrinks the policy's powers, ``none``
        with secrets in reach warns; both are an event and a line in summary.md."""
        if fell_back:
            policy.no_sandbox = bwrap_problem() or fell_back
            self.sandbox_note = fell_back + FALLBACK_NOTE
            self.emit(ev.WarningEvent(kind="sandbox_unavailable", message=self.sandbox_note))
        elif self.settings.recipe.sandbox == "none":
            note = secrets_warning(os.environ)
            if note:
                self.sandbox_note = note
                self.emit(ev.WarningEvent(kind="secrets_without_sandbox", message=note))

    def _sandbox(
        self, workspace: Path, policy: PolicyEngine, network: bool, host_sockets: bool
    ) -> tuple[Sandbox | None, str | None]:
        """A sandbox for this task; its placeholders are removed when the task ends."""
        box, warning = make_sandbox(
            self.settings.recipe.sandbox,
            workspace=workspace,
            network=network,
            host_sockets=host_sockets,
            readonly=policy.sandbox_readonly(),
            protect_workflows=not policy.workflows_allowed("run_shell_command"),
        )
        if box is not None:
            self.sandboxes.append(box)
        return box, warning

    async def _setup(self, workspace: Path, env: dict[str, str], hook_scripts: list[Path]) -> None:
        """The recipe's setup commands, outside the policy; a failure ends the task.

        The first task's setup runs on the host (the checkout as the job made it); a later
        task's runs in the sandbox when the earlier agent's work is there (``isolation:
        none``; ``copy`` and ``worktree`` start again from the untouched original), with
        ``setup.network`` and ``setup.host_sockets`` (both off unless set).
        """
        config = self.settings.recipe.setup_config
        sandbox = None
        touched = not self.first and self.settings.recipe.workspace.isolation == "none"
        if config.commands and touched:
            policy = PolicyEngine.from_recipe(
                self.settings.recipe.policy,
                workspace=workspace,
                recipe_path=self.settings.recipe_path,
            )
            policy.protected.reals.extend(hook_scripts)
            sandbox, _ = self._sandbox(workspace, policy, config.network, config.host_sockets)
        for command in config.commands:
            result = await run_process(
                command,
                cwd=workspace,
                env=env,
                timeout=self.plan.budget.tool_timeout_seconds,
                output_cap=8000,
                sandbox=sandbox,
            )
            if result.exit_code != 0:
                tail = result.output[-2000:]
                why = "timed out" if result.timed_out else f"exit {result.exit_code}"
                raise InvalidInput(f"setup command failed ({why}): {command}\n{tail}")


async def _change_and_patch(tracker: ChangeTracker) -> tuple[Change, Patch]:
    return await tracker.change(), await tracker.patch()
