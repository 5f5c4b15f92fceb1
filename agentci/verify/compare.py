"""What an attempt changed compared with the baseline, test by test.

Categories (each a sorted list of test ids):

* ``fixed`` — failed (or errored) in the baseline, passes now.
* ``still_failing`` — failed in the baseline and still fails.
* ``regressed`` — passed in the baseline, fails now (after the flaky rerun, see :func:`merge_rerun`).
* ``added`` — not in the baseline (any outcome; ``added_failing`` are the failing ones).
* ``removed`` — in the baseline, not run any more.
* ``flaky`` — failed in the first run of an attempt but passed when rerun.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentci.verify.run import TestOutcome, VerifyRun

CATEGORIES = ("fixed", "still_failing", "regressed", "added", "added_failing", "removed", "flaky")


@dataclass
class Changes:
    """Per-test changes between the baseline and one attempt."""

    fixed: list[str] = field(default_factory=list)
    still_failing: list[str] = field(default_factory=list)
    regressed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    added_failing: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        """Every category, for events and result.json."""
        return {name: list(getattr(self, name)) for name in CATEGORIES}

    def category(self, test_id: str) -> str:
        """The category of ``test_id`` (``unchanged`` when in none)."""
        for name in CATEGORIES:
            if test_id in getattr(self, name):
                return name
        return "unchanged"


def compare(baseline: VerifyRun | None, current: VerifyRun) -> Changes:
    """Classify ``current``'s tests against ``baseline`` (None: everything counts as added).
    A failing-first run (``scope``) ran a selection: the baseline's other tests are not
    ``removed``, they were not asked for."""
    before = baseline.tests if baseline is not None else {}
    changes = Changes()
    for tid, test in sorted(current.tests.items()):
        old = before.get(tid)
        if old is None:
            changes.added.append(tid)
            if test.bad:
                changes.added_failing.append(tid)
        elif old.bad and not test.bad:
            if test.outcome == "passed":
                changes.fixed.append(tid)
        elif old.bad and test.bad:
            changes.still_failing.append(tid)
        elif test.bad:  # passed (or was skipped) in the baseline, fails now
            changes.regressed.append(tid)
    if current.scope == "full":
        changes.removed = sorted(set(before) - set(current.tests))
    return changes


def merge_rerun(
    first: VerifyRun, rerun: VerifyRun, suspects: list[str]
) -> tuple[VerifyRun, list[str]]:
    """Combine an attempt with its rerun: ``suspects`` that passed on the rerun are flaky.

    Returns the merged run (the first run's outcomes, with flaky tests marked passed) and the
    flaky ids. The merged run passes when the rerun passed outright, or when the first run's
    only failures were flaky.
    """
    flaky = sorted(t for t in suspects if t in rerun.tests and not rerun.tests[t].bad)
    tests = dict(first.tests)
    for tid in flaky:
        old = tests[tid]
        tests[tid] = TestOutcome(tid, "passed", f"flaky: failed once ({old.message}), then passed")
    still_bad = any(t.bad for t in tests.values())
    passed = rerun.passed or (first.junit_found and not still_bad and not first.timed_out)
    if rerun.passed:
        tests = {tid: t for tid, t in rerun.tests.items()} or tests
        for tid in flaky:
            tests[tid] = TestOutcome(tid, "passed", "flaky: failed once, then passed on rerun")
    merged = VerifyRun(
        command=first.command,
        exit_code=rerun.exit_code if rerun.passed else first.exit_code,
        passed=passed,
        output=rerun.output if rerun.passed else first.output,
        duration_ms=first.duration_ms + rerun.duration_ms,
        timed_out=first.timed_out and rerun.timed_out,
        tests=tests,
        junit_found=first.junit_found or rerun.junit_found,
        junit_problem=first.junit_problem,
        scope=first.scope,
    )
    return merged, flaky
