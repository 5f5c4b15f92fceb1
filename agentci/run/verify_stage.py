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

The change the guards judge is the tracker's snapshot taken *before* each verify run; what a
verify run writes is subtracted when the agent works again (:meth:`ChangeTracker.verify_done`),
so coverage files and caches never reach the guards or the patch.

Statuses (see :meth:`ChangeCheck.verdict`): ``success`` when the baseline already passes and
``verify.skip_if_passing`` is on (the agent never runs, no tokens are spent: there is nothing to
fix, and a CI job that fixes tests should not fail on a green build); ``verify_failed`` when
verify still fails, a test regressed, or a guard is still broken after the last attempt;
otherwise the task's usual rules (``success`` / ``no_changes``).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.errors import InvalidInput
from agentci.events import types as ev
from agentci.events.diagnose import cannot_run, sandbox_note
from agentci.outcome import Status
from agentci.recipe.verify_config import Verify
from agentci.tempdirs import make_temp_dir
from agentci.verify.compare import Changes, compare, merge_rerun
from agentci.verify.feedback import guard_feedback, tail, template_vars, verify_feedback
from agentci.verify.guards import (
    PATH_GUARDS,
    GuardResult,
    check_guards,
    configured,
    revert_refused,
)
from agentci.verify.locations import run_locations
from agentci.verify.progress import ProgressWatch
from agentci.verify.run import VerifyRun, run_verify
from agentci.verify.selection import Selection, failing_first, strategy_of
from agentci.verify.set_aside import SetAside
from agentci.verify.weakened import mode_of
from agentci.verify.weakened_guard import WeakenedGuard

if TYPE_CHECKING:
    from agentci.change.change import Change
    from agentci.change.patch import ChangeTracker
    from agentci.policy.sandbox import Sandbox
    from agentci.reports.report import TaskReport
    from agentci.spec import TaskSpec

Emit = Callable[[ev.Event], object]
GUARD_ONLY_ATTEMPTS = 2  # without verify: one chance to fix a guard violation
MESSAGE_CAP = 2_000


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
    ) -> None:
        self.verify = plan.verify
        self.guards = plan.guards
        self.workspace = workspace
        self.env = dict(env)
        self.tracker: ChangeTracker | None = None  # set once the patch baseline is taken
        self.emit = emit
        self.sandbox = sandbox  # verify runs what the agent wrote: in the sandbox when there is one
        self.has_guards = configured(plan.guards)
        self.weakened = WeakenedGuard(
            mode_of(plan.guards, plan.verify), explicit=plan.guards.weakened_tests is not None
        )
        if self.verify is not None:
            self.attempts = self.verify.attempts
        else:
            self.attempts = GUARD_ONLY_ATTEMPTS if self.has_guards or self.weakened.active else 1
        self.attempt = 0
        self.baseline_run: VerifyRun | None = None
        self.last_run: VerifyRun | None = None  # the run that decided the last attempt
        self.changes: Changes | None = None
        self.full_run: VerifyRun | None = None  # the last run of the whole suite (reported)
        self._select: Selection | None = None  # what this attempt's failing-first run selected
        self.full_changes: Changes | None = None
        self.guard_results: list[GuardResult] = []
        self.reverted: dict[str, list[str]] = {}  # guard → every file it reverted, this task
        self.failure: str | None = None
        self.skipped = False
        self.results: list[ev.VerifyResult] = []
        self.progress = ProgressWatch(no_progress)  # the same failures twice: stop early
        self.stalled: str | None = None
        self._tmp = make_temp_dir("verify")

    # -- before the agent -------------------------------------------------------------------

    async def before_agent(self) -> bool:
        """Run the baseline verify. False when it already passes and the task ends now."""
        if self.verify is None or not self.verify.baseline:
            return True
        run = await run_verify(
            self.verify,
            workspace=self.workspace,
            env=self.env,
            tmp_dir=self._tmp,
            label="base",
            sandbox=self.sandbox,
        )
        self.baseline_run = run
        self._record(run, "baseline", 0, None)
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
        return {"verify": template_vars(self.baseline_run)}

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
            if any(g.name in PATH_GUARDS and not g.passed for g in self.guard_results):
                self.guard_results = await self._revert(change)
                broken = [g for g in self.guard_results if not g.passed]
                if not last:
                    return guard_feedback(broken, self.attempt, self.attempts)
                self.failure = _guard_reason(broken)
        if self.verify is not None:
            # the snapshot before verify: verify's writes never count
            changed = (await self.tracker.change()).files
            await self._verify_attempt(last, changed)
        elif self.weakened.active:
            change = await self.tracker.change()
            await asyncio.to_thread(
                self.weakened.observe, self.tracker.baseline, change.files, None, None, []
            )
        prompt = self._decide(last)
        if prompt is not None and self.verify is not None:
            await self.tracker.verify_done()
        return prompt

    async def _revert(self, change: Change) -> list[GuardResult]:
        """Revert what the path guards refuse; the size guards are measured after."""
        assert self.tracker is not None
        baseline = self.tracker.baseline
        results = await asyncio.to_thread(revert_refused, self.guards, baseline, change)
        self._note_reverts(results)
        if not any(r.reverted for r in results):
            return results
        self.tracker.workspace_changed()
        after = check_guards(self.guards, await self.tracker.change())
        sizes = {r.name: r for r in after if r.name not in PATH_GUARDS}
        return [sizes.get(r.name, r) for r in results]

    async def _verify_attempt(self, last: bool, changed: list[str]) -> None:
        """One attempt's verify, on the change without the agent's hidden files (they are set
        aside while it runs: :mod:`agentci.verify.set_aside`), then the weakened_tests checks
        (the per-test ones against a full-suite run of this attempt only)."""
        assert self.verify is not None and self.tracker is not None
        baseline, change = self.tracker.baseline, await self.tracker.change()
        aside = await asyncio.to_thread(SetAside.take, baseline, change.ignored_written)
        if aside.moved or aside.left or aside.restored:
            self._note_set_aside(aside)
        full_before = self.full_run
        try:
            await self._verify_runs(last, changed)
        finally:
            stuck = await asyncio.to_thread(aside.put_back)
            if stuck:
                self.emit(ev.Error(kind="files_set_aside", message="could not put back "
                                   f"{len(stuck)} file(s), left in {aside.store}: "
                                   f"{', '.join(stuck)}"))  # fmt: skip
        full = self.full_run if self.full_run is not full_before else None
        hidden: list[str] = []
        decided = self.last_run
        agents = [*aside.restored, *aside.moved]
        if agents and decided is not None and not decided.passed and self.weakened.active:
            again = await run_verify(  # the same run with the hidden files: does it pass?
                self.verify,
                workspace=self.workspace,
                env=self.env,
                tmp_dir=self._tmp,
                label=f"attempt{self.attempt}-with-hidden",
                sandbox=self.sandbox,
                select=None if decided is full else self._select,
            )
            hidden = agents if again.passed else []
        await asyncio.to_thread(
            self.weakened.observe, baseline, change.files, self.baseline_run, full, hidden
        )

    def _note_set_aside(self, aside: SetAside) -> None:
        self.weakened.note_set_aside([*aside.restored, *aside.moved], aside.left)
        message = (
            f"{len(aside.moved)} file(s) the agent made that the ignore rules hide from the "
            f"patch were set aside while verify ran: {', '.join(aside.moved)}"
        )
        if aside.restored:
            message += (
                f"; {len(aside.restored)} ignored file(s) the agent changed had their baseline "
                f"content while verify ran: {', '.join(aside.restored)}"
            )
        if aside.left:
            message += f"; could not set aside: {', '.join(aside.left)}"
        self.emit(ev.Error(kind="files_set_aside", message=message))

    async def _verify_runs(self, last: bool, changed: list[str]) -> None:
        """The attempt's verify. With ``verify.strategy: failing_first`` and attempts left, the
        selected tests run first (:mod:`agentci.verify.selection`): when they fail, their
        failures decide the attempt and the full suite is not run, unless the task would stop
        for lack of progress; otherwise the full suite runs and decides."""
        assert self.verify is not None
        label = f"attempt{self.attempt}"
        select = self._select = None if last else self._selection(changed)
        if select is not None:
            run, changes = await self._runs(f"{label}-first", select)
            if run.tests and not (run.passed and not changes.regressed):
                self.last_run, self.changes = run, changes
                self.stalled = self.progress.observe(run)
                if self.stalled is None:
                    return  # back to the model: the full suite would fail as well
        run, changes = await self._runs(label, None)
        self.last_run, self.changes = run, changes
        self.full_run, self.full_changes = run, changes
        self.stalled = self.progress.observe(run)

    def _selection(self, changed: list[str]) -> Selection | None:
        """What a failing-first run selects (None: run the full suite): the tests failing at
        the baseline and in the last full run, and the tests of the changed files."""
        assert self.verify is not None
        if strategy_of(self.verify) != "failing_first":
            return None
        failing = set(self.baseline_run.failing if self.baseline_run else [])
        failing |= set(self.full_run.failing if self.full_run else [])
        return failing_first(sorted(failing), changed, self.workspace) or None

    async def _runs(self, label: str, select: Selection | None) -> tuple[VerifyRun, Changes]:
        """One verify run (of ``select`` only, when given) and its reruns of regressed tests."""
        assert self.verify is not None
        run = await run_verify(
            self.verify,
            workspace=self.workspace,
            env=self.env,
            tmp_dir=self._tmp,
            label=label,
            sandbox=self.sandbox,
            select=select,
        )
        changes = compare(self.baseline_run, run)
        self._record(run, "attempt", self.attempt, changes)
        flaky: list[str] = []
        for n in range(self.verify.rerun_failures):
            if not changes.regressed:
                break
            again = await run_verify(
                self.verify,
                workspace=self.workspace,
                env=self.env,
                tmp_dir=self._tmp,
                label=f"{label}-rerun{n + 1}",
                sandbox=self.sandbox,
                select=select,
            )
            run, newly = merge_rerun(run, again, changes.regressed)
            flaky += newly
            changes = compare(self.baseline_run, run)
            changes.flaky = sorted(set(flaky))
            self._record(run, "attempt", self.attempt, changes, rerun=n + 1)
        return run, changes

    def _decide(self, last: bool) -> str | None:
        run, changes = self.last_run, self.changes
        verify_ok = run is None or (run.passed and not (changes and changes.regressed))
        size_broken = [g for g in self.guard_results if not g.passed and g.name not in PATH_GUARDS]
        weak = self.weakened.blocking
        if self.failure is None and verify_ok and not size_broken and not weak:
            return None
        told = self.weakened.take_feedback(self.attempt, self.attempts) if not last else None
        if weak and told is None and verify_ok and not size_broken and self.failure is None:
            last = True  # told once already: the model keeps the weakening, no more attempts
        if not last and self.stalled:  # no progress: the attempts left would change nothing
            self.emit(ev.LoopDetectedEvent(kind="no_progress", detail=self.stalled))
            self.failure = f"{self.stalled}; {self.attempts - self.attempt} attempt(s) not used"
            return None
        if not last:
            parts = []
            if not verify_ok and run is not None:
                parts.append(verify_feedback(run, changes, self.attempt, self.attempts))
            if size_broken:
                parts.append(guard_feedback(size_broken, self.attempt, self.attempts))
            if told is not None:
                parts.insert(0, told)
            return "\n\n".join(parts)
        reasons = [self.weakened.reason()] if weak else []
        reasons += [self.failure] if self.failure else []
        if size_broken:
            reasons.append(_guard_reason(size_broken))
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
                results = await self._revert(await self.tracker.change())
                if any(r.reverted or r.ignored_restored for r in results) or not (
                    self.guard_results
                ):
                    self.guard_results = results
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)
        report.verify = [r for r in self.results if r.scope == "full"]  # what decides
        report.extra["verify"] = self.summary()
        guards = [self._with_reverts(g).as_dict() for g in self.guard_results]
        weakened = self.weakened.guard_result()
        if weakened is not None:
            guards.append(weakened.as_dict())
        if self.has_guards or weakened is not None:
            report.extra["guards"] = guards
        if (weakened_report := self.weakened.report()) is not None:
            report.extra["weakened_tests"] = weakened_report

    def _note_reverts(self, results: list[GuardResult]) -> None:
        """Each revert is a ``warning`` event (kind ``guard_reverted``), remembered for the
        guard's testcase and summary.md."""
        for r in results:
            if r.ignored_restored:  # put back, not a refusal of the change: the guard holds
                files = ", ".join(r.ignored_restored)
                self.emit(
                    ev.WarningEvent(
                        kind="guard_reverted",
                        message=f"guard {r.name} put back {len(r.ignored_restored)} ignored "
                        f"file(s) the agent wrote: {files}",
                    )
                )
            if r.reverted:
                done = self.reverted.setdefault(r.name, [])
                done.extend(p for p in r.reverted if p not in done)
                files = ", ".join(r.reverted)
                self.emit(
                    ev.WarningEvent(
                        kind="guard_reverted",
                        message=f"guard {r.name} reverted {len(r.reverted)} file(s), "
                        f"not in the patch: {files}",
                    )
                )

    def _with_reverts(self, result: GuardResult) -> GuardResult:
        """A guard that reverted a file during the task failed, even if it is clean now."""
        done = self.reverted.get(result.name)
        if not done:
            return result
        message = result.message or f"{len(done)} changed file(s) refused: {', '.join(done)}"
        paths = sorted(set(result.paths) | set(done))
        return GuardResult(result.name, False, message, paths, done, result.ignored_restored)

    def summary(self) -> dict[str, Any] | None:
        """``extra.verify`` in result.json: baseline, attempts and the per-test changes."""
        if self.verify is None:
            return None
        base = self.baseline_run
        last = self.full_run or (base if self.skipped else None)
        changes = self.full_changes.as_dict() if self.full_changes else Changes().as_dict()
        runs = [{"attempt": r.attempt, "scope": r.scope, "passed": r.passed,
                 "tests": r.counts.get("total", 0)}
                for r in self.results if r.phase == "attempt" and "rerun" not in r.counts]  # fmt: skip
        return {
            "command": self.verify.command,
            "strategy": strategy_of(self.verify),
            "runs": runs,
            "baseline": None if base is None else
            {"passed": base.passed, "counts": base.counts(), "failing": base.failing},
            "attempts": self.attempt,
            "max_attempts": self.attempts,
            "passed": None if last is None else last.passed,
            "counts": {} if last is None else last.counts(),
            "agent_skipped": self.skipped,
            **changes,
        }  # fmt: skip

    def _record(
        self, run: VerifyRun, phase: str, attempt: int, changes: Changes | None, rerun: int = 0
    ) -> None:
        counts = run.counts()
        if rerun:
            counts["rerun"] = rerun
        event = ev.VerifyResult(
            phase=phase,  # type: ignore[arg-type]
            scope=run.scope,
            attempt=attempt,
            command=run.command,
            exit_code=run.exit_code,
            passed=run.passed,
            counts=counts,
            tests=[
                ev.VerifyTest(id=t.id, outcome=t.outcome, message=_message(t.message, t.detail))
                for t in run.tests.values()
            ],
            changes=changes.as_dict() if changes else {},
            output_tail=tail(run.output)
            + (f"\n[{run.junit_problem}]" if run.junit_problem else "")
            + (f"\n[{note}]" if (note := sandbox_note(run.output)) else ""),
            duration_ms=run.duration_ms,
            locations=run_locations(run, self.workspace),
        )
        self.results.append(event)
        self.emit(event)


def cannot_run_reason(run: VerifyRun, verify: Verify) -> str | None:
    """Why the verify command cannot run at all (None when it ran): the shell could not find
    or execute it (exit 127 / 126), ``runner: pytest`` produced no JUnit report (it did not run
    pytest), or the ``junit:`` report is missing or unreadable. Checked on the baseline run,
    before the model is called."""
    if run.timed_out:
        return None
    if run.exit_code in (126, 127):
        said = cannot_run(run.exit_code, run.output) or f"exit {run.exit_code}"
        return said.removeprefix("the verify command could not run: ")
    if verify.runner == "pytest" and not run.junit_found:
        if run.junit_problem.startswith("could not read"):
            return f"runner: pytest, but {run.junit_problem}"
        return "runner: pytest, but the command wrote no JUnit report: it did not run pytest"
    if verify.junit and not run.junit_found:
        return f"junit: {verify.junit}, but {run.junit_problem}"
    return None


def _message(message: str, detail: str) -> str:
    text = f"{message}\n\n{detail}" if detail and detail != message else message
    return text if len(text) <= MESSAGE_CAP else "…" + text[-MESSAGE_CAP:]


def _guard_reason(broken: list[GuardResult]) -> str:
    parts = []
    for g in broken:
        note = " (reverted: not in the patch)" if g.reverted else ""
        parts.append(f"guard {g.name}: {g.message}{note}")
    return "; ".join(parts)


def _verify_reason(run: VerifyRun, changes: Changes | None, attempts: int) -> str:
    if changes is not None and changes.regressed:
        return f"verify: {len(changes.regressed)} test(s) regressed: {', '.join(changes.regressed)}"
    failing = run.failing
    if failing:
        shown = ", ".join(failing[:10]) + (" …" if len(failing) > 10 else "")
        return f"verify still fails after {attempts} attempt(s): {len(failing)} failing: {shown}"
    why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
    return f"verify still fails after {attempts} attempt(s) ({why})"
