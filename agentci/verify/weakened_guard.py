"""The ``weakened_tests`` guard across one task's attempts (the checks: :mod:`.weakened`).

:class:`WeakenedGuard` keeps the mode, the findings of the latest attempt, whether the model has
been told, and the files set aside for the verdict.
:func:`~agentci.run.verify_attempt.verify_attempt` calls :meth:`observe` after each verify
attempt; :class:`~agentci.run.verify_stage.ChangeCheck` asks :meth:`blocking` /
:meth:`take_feedback` when it decides what comes next; :meth:`report` fills result.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentci.change.snapshot import Baseline
from agentci.verify.guards import GuardResult
from agentci.verify.run import VerifyRun
from agentci.verify.weakened import (
    Finding,
    change_findings,
    feedback,
    hidden_findings,
    listing,
    reason,
    result_findings,
)


@dataclass
class WeakenedGuard:
    """One task's ``weakened_tests`` state; ``explicit``: the recipe sets the guard."""

    mode: str
    explicit: bool = False
    findings: list[Finding] = field(default_factory=list)
    checked: bool = False
    told: bool = False
    set_aside: list[str] = field(default_factory=list)  # every file set aside, this task
    not_set_aside: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        """The guard looks at the change (``on`` or ``report``)."""
        return self.mode != "off"

    def observe(
        self,
        baseline: Baseline,
        files: list[str],
        base_run: VerifyRun | None,
        final_run: VerifyRun | None,
        hidden: list[str],
    ) -> None:
        """Check one attempt: the changed ``files``, the baseline and this attempt's full-suite
        run (None when it ran only the failing tests first), and the ``hidden`` files verify
        passed only with."""
        if not self.active:
            return
        # with per-test results, a removed test is judged on a full run ("disappeared")
        results = base_run is not None and base_run.junit_found
        results = results or (final_run is not None and final_run.junit_found)
        found = change_findings(baseline, files, results=results)
        if final_run is not None:
            found = result_findings(base_run, final_run) + found
        self.findings = found + hidden_findings(hidden)
        self.checked = True

    def note_set_aside(self, moved: list[str], left: list[str]) -> None:
        """Remember the files one verify run did not see (and those it could not hide)."""
        self.set_aside += [p for p in moved if p not in self.set_aside]
        self.not_set_aside += [p for p in left if p not in self.not_set_aside]

    @property
    def blocking(self) -> bool:
        """The findings fail the task (mode ``on``)."""
        return self.mode == "on" and bool(self.findings)

    def take_feedback(self, attempt: int, attempts: int) -> str | None:
        """The findings for the model, the first time only (None after that or when none)."""
        if not self.blocking or self.told:
            return None
        self.told = True
        return feedback(self.findings, attempt, attempts)

    def reason(self) -> str:
        """The task's reason when :attr:`blocking`."""
        return reason(self.findings)

    def guard_result(self) -> GuardResult | None:
        """The ``guard:weakened_tests`` entry of ``extra.guards``: when the recipe sets the
        guard, or when there are findings (None otherwise: a default guard that found nothing
        adds no testcase)."""
        if not self.checked or not (self.explicit or self.findings):
            return None
        tests = [f.test for f in self.findings]
        if not self.findings:
            return GuardResult("weakened_tests", True)
        message = f"{len(self.findings)} finding(s):\n{listing(self.findings)}"
        if self.mode == "report":
            message = f"report only (not failing the task): {message}"
        return GuardResult("weakened_tests", self.mode != "on", message, tests)

    def report(self) -> dict[str, Any] | None:
        """``extra.weakened_tests`` in result.json (None when the guard is off)."""
        if not self.active:
            return None
        return {
            "mode": self.mode,
            "checked": self.checked,
            "findings": [f.as_dict() for f in self.findings],
            "set_aside": list(self.set_aside),
            "not_set_aside": list(self.not_set_aside),
        }
