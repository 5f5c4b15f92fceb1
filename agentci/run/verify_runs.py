"""The verify runs of one task, each recorded as a ``verify_result`` event.

:class:`VerifyRuns` runs the baseline before the agent and, after each session, one attempt's
runs: with ``verify.strategy: failing_first`` and attempts left the selected tests first
(:mod:`agentci.verify.selection`), the full suite when they pass; each run followed by reruns of
the tests it regressed (``verify.rerun_failures``). It remembers what decided the attempt and
the last full-suite run (what is reported), and watches for an attempt that fails the same way
as the one before (:class:`~agentci.verify.progress.ProgressWatch`). After each run after the
agent, :attr:`VerifyRuns.after_run` (set by the attempt) puts back what the run wrote to the
files the patch is made of: the next run sees the baseline plus the agent's change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.events import types as ev
from agentci.events.diagnose import cannot_run, sandbox_note
from agentci.policy.pyc_carry import WorkspaceBytecode
from agentci.recipe.verify_config import Verify
from agentci.verify.compare import Changes, compare, merge_rerun
from agentci.verify.feedback import tail
from agentci.verify.judged import judge
from agentci.verify.locations import run_locations
from agentci.verify.progress import ProgressWatch
from agentci.verify.run import VerifyRun, run_verify
from agentci.verify.selection import Selection, collects_most, failing_first, strategy_of

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox

Emit = Callable[[ev.Event], object]
MESSAGE_CAP = 2_000


class VerifyRuns:
    """Runs the recipe's verify command for one task and remembers what each run saw."""

    def __init__(
        self,
        verify: Verify,
        *,
        workspace: Path,
        env: Mapping[str, str],
        emit: Emit,
        tmp_dir: Path,
        sandbox: Sandbox | None = None,
        no_progress: bool = True,
        carry_bytecode: bool = False,
    ) -> None:
        self.verify = verify
        self.workspace = workspace
        self.env = dict(env)
        self.emit = emit
        self.sandbox = sandbox  # verify runs what the agent wrote: in the sandbox when there is one
        self._tmp = tmp_dir
        self.attempt = 0
        self.baseline_run: VerifyRun | None = None
        self.last_run: VerifyRun | None = None  # the run that decided the last attempt
        self.changes: Changes | None = None
        self.full_run: VerifyRun | None = None  # the last run of the whole suite (reported)
        self.full_changes: Changes | None = None
        self.select: Selection | None = None  # what this attempt's failing-first run selected
        self.results: list[ev.VerifyResult] = []
        self.progress = ProgressWatch(no_progress)  # the same failures twice: stop early
        self.stalled: str | None = None
        #: called after each run: puts back what it wrote (returns those paths); None before
        #: the agent (the baseline's writes are part of the baseline)
        self.after_run: Callable[[], Awaitable[list[str]]] | None = None
        self.restored: list[str] = []  # put back since the attempt began
        self.started = 0  # verify runs started (counted before each runs)
        #: the workspace's bytecode the baseline run compiled, for the later runs (sandboxed
        #: runs with a bytecode store only, and only when the baseline runs no agent's code —
        #: ``carry_bytecode``: the run's first task, not resumed; :mod:`agentci.policy.pyc_carry`)
        self.bytecode = (
            WorkspaceBytecode(workspace)
            if carry_bytecode and sandbox is not None and sandbox.pycache is not None
            else None
        )

    async def baseline(self) -> VerifyRun:
        """Run verify before the agent, and record it as the baseline."""
        run = await self.again("base", None, baseline=True)
        self.baseline_run = run
        self._record(run, "baseline", 0, None)
        return run

    async def again(
        self, label: str, select: Selection | None, *, baseline: bool = False
    ) -> VerifyRun:
        """One verify run (of ``select`` only, when given), not recorded; then what it wrote to
        the files the patch is made of is put back (:attr:`after_run`). A run after the agent
        that could not judge the change fails (:func:`~agentci.verify.judged.judge`)."""
        self.started += 1
        run = await run_verify(
            self.verify,
            workspace=self.workspace,
            env=self.env,
            tmp_dir=self._tmp,
            label=label,
            sandbox=self.sandbox,
            select=select,
            bytecode=self.bytecode,
            keep_bytecode=baseline,
        )
        if not baseline:
            judge(run, self.baseline_run, self.verify)
        if self.after_run is not None:
            self.restored = sorted({*self.restored, *await self.after_run()})
        return run

    def cleanup(self) -> None:
        """Remove what the task's runs kept (the workspace's bytecode)."""
        if self.bytecode is not None:
            self.bytecode.cleanup()

    async def attempt_runs(self, attempt: int, last: bool, changed: list[str]) -> None:
        """The attempt's verify. With ``verify.strategy: failing_first`` and attempts left, the
        selected tests run first (:mod:`agentci.verify.selection`): when they fail, their
        failures decide the attempt and the full suite is not run, unless the task would stop
        for lack of progress; otherwise the full suite runs and decides."""
        self.attempt = attempt
        self.restored = []
        label = f"attempt{attempt}"
        select = self.select = None if last else self._selection(changed)
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
        the baseline and in the last full run, and the tests of the changed files; None too
        when their modules hold most of a large suite (:func:`collects_most`)."""
        if strategy_of(self.verify) != "failing_first":
            return None
        failing = set(self.baseline_run.failing if self.baseline_run else [])
        failing |= set(self.full_run.failing if self.full_run else [])
        select = failing_first(sorted(failing), changed, self.workspace)
        suite = self.full_run or self.baseline_run
        if not select or (suite and collects_most(select, list(suite.tests), self.workspace)):
            return None
        return select

    async def _runs(self, label: str, select: Selection | None) -> tuple[VerifyRun, Changes]:
        """One verify run (of ``select`` only, when given) and its reruns of regressed tests."""
        run = await self.again(label, select)
        changes = compare(self.baseline_run, run)
        self._record(run, "attempt", self.attempt, changes)
        flaky: list[str] = []
        for n in range(self.verify.rerun_failures):
            if not changes.regressed:
                break
            again = await self.again(f"{label}-rerun{n + 1}", select)
            run, newly = merge_rerun(run, again, changes.regressed)
            flaky += newly
            changes = compare(self.baseline_run, run)
            changes.flaky = sorted(set(flaky))
            self._record(run, "attempt", self.attempt, changes, rerun=n + 1)
        return run, changes

    def summary(self, *, attempts: int, max_attempts: int, skipped: bool) -> dict[str, Any]:
        """``extra.verify`` in result.json: baseline, attempts and the per-test changes."""
        base = self.baseline_run
        last = self.full_run or (base if skipped else None)
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
            "attempts": attempts,
            "max_attempts": max_attempts,
            "passed": None if last is None else last.passed,
            "counts": {} if last is None else last.counts(),
            "agent_skipped": skipped,
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
            + (f"\n[verify cannot judge the change: {run.unjudged}]" if run.unjudged else "")
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
