"""Verify and guards for one task: the baseline before the agent, a check after each session.

How :class:`~agentci.run.task.TaskRun` uses it::

    check = ChangeCheck(plan, workspace=..., env=..., emit=...)
    if await check.before_agent():              # baseline verify (may end the task at once)
        check.tracker = await ChangeTracker.start(...)   # the patch baseline: after it
        prompt = render_prompt(plan, extra=check.prompt_vars())
        while prompt is not None:
            check.tracker.agent_started()
            async for event in session.run(prompt): ...
            prompt = await check.after_agent()    # guards + verify → follow-up prompt or None
    ...
    await check.finish(report)                    # before the patch is taken

The change the guards judge is the tracker's snapshot taken *before* each verify run; after the
runs, the files they wrote that the patch is made of are put back as they were, and their
ignored writes are subtracted (:meth:`ChangeTracker.verify_done`), so coverage files and caches
never reach the guards or the patch, and a file verify rewrote never reaches the next run.

Statuses (see :meth:`ChangeCheck.verdict`): ``success`` when the baseline already passes and
``verify.skip_if_passing`` is on (the agent never runs, no tokens are spent: there is nothing to
fix, and a CI job that fixes tests should not fail on a green build); ``verify_failed`` when
verify still fails, a test regressed, a guard is still broken after the last attempt, or an
ignored file the agent changed could not be set aside while the deciding verify ran (its
verdict would not be the patch's);
otherwise the task's usual rules (``success`` / ``no_changes``).

:class:`ChangeCheck` decides; the verify runs are :class:`~agentci.run.verify_runs.VerifyRuns`
(failing-first selection, reruns, the ``verify_result`` events), one attempt's verify with the
agent's hidden files set aside and the ``weakened_tests`` checks is
:func:`~agentci.run.verify_attempt.verify_attempt`, and the path guards' reverts are
:class:`~agentci.run.guard_reverts.GuardReverts`.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.errors import InvalidInput
from agentci.events import types as ev
from agentci.outcome import Status
from agentci.run.guard_reverts import GuardReverts, guard_reason
from agentci.run.verify_attempt import AttemptFiles, verify_attempt
from agentci.run.verify_runs import VerifyRuns, cannot_run_reason
from agentci.tempdirs import make_temp_dir
from agentci.verify.compare import Changes
from agentci.verify.feedback import guard_feedback, tail, template_vars, verify_feedback
from agentci.verify.guards import (
    PATH_GUARDS,
    GuardResult,
    check_guards,
    configured,
)
from agentci.verify.run import VerifyRun
from agentci.verify.verdict_files import (
    not_set_aside_feedback,
    not_set_aside_reason,
    restored_feedback,
    scan_truncated_reason,
)
from agentci.verify.weakened import mode_of
from agentci.verify.weakened_guard import WeakenedGuard

if TYPE_CHECKING:
    from agentci.change.patch import ChangeTracker
    from agentci.policy.sandbox import Sandbox
    from agentci.reports.report import TaskReport
    from agentci.spec import TaskSpec

Emit = Callable[[ev.Event], object]
GUARD_ONLY_ATTEMPTS = 2  # without verify: one chance to fix a guard violation


class ChangeCheck:
    """Runs verify and checks guards for one task, and remembers what it saw."""

    def __init__(
        self,
        plan: TaskSpec,
        *,
        workspace: Path,
        env: Mapping[str, str],
        emit: Emit,
        sandbox: Sandbox | None = None,
        no_progress: bool = True,
        carry_bytecode: bool = False,
    ) -> None:
        self.verify = plan.verify
        self.guards = plan.guards
        self.tracker: ChangeTracker | None = None  # set once the patch baseline is taken
        self.emit = emit
        self.has_guards = configured(plan.guards)
        self.weakened = WeakenedGuard(
            mode_of(plan.guards, plan.verify), explicit=plan.guards.weakened_tests is not None
        )
        if self.verify is not None:
            self.attempts = self.verify.attempts
        else:
            self.attempts = GUARD_ONLY_ATTEMPTS if self.has_guards or self.weakened.active else 1
        self.attempt = 0
        self.guard_results: list[GuardResult] = []
        self.reverts = GuardReverts(plan.guards, emit)
        self.failure: str | None = None
        self.files = AttemptFiles()  # what the last attempt's verify restored / could not set aside
        self.skipped = False
        self.scan_truncated = False  # the last attempt's snapshot did not see every ignored file
        self._tmp = make_temp_dir("verify")
        self.runs: VerifyRuns | None = None
        if plan.verify is not None:
            self.runs = VerifyRuns(
                plan.verify,
                workspace=workspace,
                env=env,
                emit=emit,
                tmp_dir=self._tmp,
                sandbox=sandbox,
                no_progress=no_progress,
                carry_bytecode=carry_bytecode,
            )

    # -- before the agent -------------------------------------------------------------------

    async def before_agent(self) -> bool:
        """Run the baseline verify. False when it already passes and the task ends now."""
        if self.verify is None or self.runs is None or not self.verify.baseline:
            return True
        run = await self.runs.baseline()
        why = cannot_run_reason(run, self.verify)
        if why is not None:  # no model can fix the recipe's own command: refuse, send nothing
            raise InvalidInput(
                f"verify.command cannot run: {run.command}: {why}\n{tail(run.output)}".rstrip()
            )
        if run.passed and self.verify.skip_if_passing:
            self.skipped = True
            return False
        return True

    def prompt_vars(self) -> dict[str, Any]:
        """Extra template variables for the first prompt: ``verify`` (see docs/verify.md)."""
        return {"verify": template_vars(self.runs.baseline_run if self.runs else None)}

    # -- after each session -----------------------------------------------------------------

    async def after_agent(self) -> str | None:
        """Check the model's change: the follow-up prompt for the model, or None when done."""
        if self.verify is None and not self.has_guards and not self.weakened.active:
            return None
        assert self.tracker is not None
        self.attempt += 1
        last = self.attempt >= self.attempts
        self.failure = None
        if self.has_guards:
            change = await self.tracker.change()
            self.guard_results = check_guards(self.guards, change)
            ignored = self.guards.allowed_paths and (
                change.ignored_written or change.ignored_deleted
            )
            if ignored or any(g.name in PATH_GUARDS and not g.passed for g in self.guard_results):
                self.guard_results = await self.reverts.revert(self.tracker, change)
                broken = [g for g in self.guard_results if not g.passed]
                if broken and not last:
                    return guard_feedback(broken, self.attempt, self.attempts)
                if broken:
                    self.failure = guard_reason(broken)
        if self.runs is not None:
            # the snapshot before verify: verify's writes never count
            before = await self.tracker.change()
            changed = before.files
            self.scan_truncated = before.ignored_scan_truncated
            self.files = await verify_attempt(
                self.runs,
                self.weakened,
                self.tracker,
                self.emit,
                attempt=self.attempt,
                last=last,
                changed=changed,
            )
        elif self.weakened.active:
            change = await self.tracker.change()
            await asyncio.to_thread(
                self.weakened.observe, self.tracker.baseline, change.files, None, None, []
            )
        return self._decide(last)

    def _decide(self, last: bool) -> str | None:
        runs = self.runs
        run = runs.last_run if runs else None
        changes = runs.changes if runs else None
        stalled = runs.stalled if runs else None
        verify_ok = run is None or (run.passed and not (changes and changes.regressed))
        size_broken = [g for g in self.guard_results if not g.passed and g.name not in PATH_GUARDS]
        weak = self.weakened.blocking
        unjudged = self.files.not_set_aside  # the verdict would not be the patch's
        if self.failure is None and verify_ok and not size_broken and not weak and not unjudged:
            if run is not None and self.scan_truncated:  # no attempt can change what is unseen
                self.failure = scan_truncated_reason()
            return None
        told = self.weakened.take_feedback(self.attempt, self.attempts) if not last else None
        if (weak and told is None and verify_ok and not size_broken and self.failure is None
                and not unjudged):  # fmt: skip
            last = True  # told once already: the model keeps the weakening, no more attempts
        if not last and stalled:  # no progress: the attempts left would change nothing
            self.emit(ev.LoopDetectedEvent(kind="no_progress", detail=stalled))
            self.failure = f"{stalled}; {self.attempts - self.attempt} attempt(s) not used"
            return None
        if not last:
            parts = []
            if not verify_ok and run is not None:
                parts.append(verify_feedback(run, changes, self.attempt, self.attempts))
            if size_broken:
                parts.append(guard_feedback(size_broken, self.attempt, self.attempts))
            if unjudged:
                parts.append(not_set_aside_feedback(unjudged))
            if self.files.restored:
                parts.append(restored_feedback(self.files.restored))
            if told is not None:
                parts.insert(0, told)
            return "\n\n".join(parts)
        reasons = [self.weakened.reason()] if weak else []
        reasons += [self.failure] if self.failure else []
        if size_broken:
            reasons.append(guard_reason(size_broken))
        if unjudged:
            reasons.append(not_set_aside_reason(unjudged))
        if not verify_ok and run is not None:
            reasons.append(_verify_reason(run, changes, self.attempt))
        self.failure = "; ".join(reasons)
        return None

    # -- the end ----------------------------------------------------------------------------

    def verdict(self) -> tuple[Status, str] | None:
        """The task's status when the checks decide it (None: the usual rules apply)."""
        if self.skipped:
            return Status.success, (
                "verify already passes before the agent started: nothing to fix "
                "(verify.skip_if_passing); the model was not called"
            )
        if self.failure:
            return Status.verify_failed, self.failure
        return None

    async def finish(self, report: TaskReport) -> None:
        """Revert what the path guards refuse (whatever ended the task) and fill the report."""
        try:
            if self.has_guards and not self.skipped and self.tracker is not None:
                results = await self.reverts.revert(self.tracker, await self.tracker.change())
                if any(r.reverted or r.ignored_restored for r in results) or not (
                    self.guard_results
                ):
                    self.guard_results = results
        finally:  # folders of files: off the event loop, where other tasks run
            await asyncio.to_thread(shutil.rmtree, self._tmp, True)
            if self.runs is not None:
                await asyncio.to_thread(self.runs.cleanup)
        runs = self.runs.results if self.runs else []
        report.verify = [r for r in runs if r.scope == "full"]  # what decides
        report.extra["verify"] = self.summary()
        guards = [self.reverts.reported(g).as_dict() for g in self.guard_results]
        weakened = self.weakened.guard_result()
        if weakened is not None:
            guards.append(weakened.as_dict())
        if self.has_guards or weakened is not None:
            report.extra["guards"] = guards
        if (weakened_report := self.weakened.report()) is not None:
            report.extra["weakened_tests"] = weakened_report

    def summary(self) -> dict[str, Any] | None:
        """``extra.verify`` in result.json: baseline, attempts and the per-test changes."""
        if self.runs is None:
            return None
        return self.runs.summary(
            attempts=self.attempt, max_attempts=self.attempts, skipped=self.skipped
        )


def _verify_reason(run: VerifyRun, changes: Changes | None, attempts: int) -> str:
    if changes is not None and changes.regressed:
        return f"verify: {len(changes.regressed)} test(s) regressed: {', '.join(changes.regressed)}"
    failing = run.failing
    if run.unjudged and not failing:
        return f"verify could not judge the change after {attempts} attempt(s): {run.unjudged}"
    if failing:
        shown = ", ".join(failing[:10]) + (" …" if len(failing) > 10 else "")
        return f"verify still fails after {attempts} attempt(s): {len(failing)} failing: {shown}"
    why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
    return f"verify still fails after {attempts} attempt(s) ({why})"
