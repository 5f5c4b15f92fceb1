"""The verify runs of a task as report.html shows them: one row per run, and one per attempt
that a guard used up.

An attempt ends either with a verify run or, when a path guard (``allowed_paths``,
``forbid_test_edits``) refused the change and attempts remain, with the files reverted and the
model asked again — no verify run (agentci.run.verify_stage). Such an attempt still counts against
``verify.attempts``, so the table shows it ("attempt 1 · not run"), with the guard that used it,
instead of jumping from the baseline to attempt 2. Which guard used which attempt is read from
the task's events: a ``guard_reverted`` warning belongs to the attempt in progress; an attempt
closes with its verify run or its revert, and the next turn starts the next one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentci.events import types as ev
from agentci.events.read import AnyEvent
from agentci.reports.report import TaskReport

_REVERTED = re.compile(
    r"guard (\S+) reverted \d+ file\(s\), not in the patch: (.*?)"
    r"(?: \(as they were before the revert: [^()]*\))?",
    re.S,
)


@dataclass
class VerifyRow:
    """One row of the verify table."""

    label: str  # baseline · attempt 2 · attempt 2, rerun 1
    result: str  # passed · failed · not run
    tone: str  # ok · bad · warn · "" (a failing baseline: what the task starts from)
    exit_code: str
    tests: str  # "3 total, 1 passed, 2 failed"
    command: str
    note: str = ""  # why an attempt did not run verify

    @property
    def short(self) -> str:
        """The row in a few words, for the line at the top of the task."""
        label = "rerun" if ", rerun" in self.label else self.label
        said = f"{label} {self.result}"
        return said + (f" ({self.note.split(':')[0]})" if self.note else "")


def guard_attempts(events: Iterable[AnyEvent]) -> dict[int, list[tuple[str, str]]]:
    """``{attempt: [(guard, reverted files), …]}`` for every attempt during which a guard
    reverted files (see the module doc)."""
    found: dict[int, list[tuple[str, str]]] = {}
    attempt, closed = 1, False
    for e in events:
        if isinstance(e, ev.TurnStarted) and closed:
            attempt, closed = attempt + 1, False
        elif isinstance(e, ev.VerifyResult) and e.phase == "attempt":
            attempt, closed = e.attempt, True
        elif isinstance(e, ev.WarningEvent) and e.kind == "guard_reverted":
            match = _REVERTED.fullmatch(e.message)
            guard, files = match.groups() if match else ("a guard", "")
            found.setdefault(attempt, []).append((guard, files))
            closed = True
    return found


def _tests(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items() if n and k != "rerun")


def verify_rows(task: TaskReport, events: Iterable[AnyEvent]) -> list[VerifyRow]:
    """The verify table of ``task``: the baseline, then each attempt in order (its reruns of
    failed tests after it), with a "not run" row for every attempt a guard used up."""
    runs = sorted(
        task.verify,
        key=lambda v: (v.phase != "baseline", v.attempt, v.counts.get("rerun", 0)),
    )
    summary: Any = task.extra.get("verify") if isinstance(task.extra, dict) else None
    used = summary.get("attempts") if isinstance(summary, dict) else None
    ran = {v.attempt for v in runs if v.phase == "attempt"}
    last = max([*ran, used if isinstance(used, int) else 0], default=0)
    missing = [n for n in range(1, last + 1) if n not in ran]
    guards = guard_attempts(events) if missing else {}
    rows: list[VerifyRow] = []
    for v in runs:
        while missing and v.phase == "attempt" and missing[0] < v.attempt:
            rows.append(_not_run(missing.pop(0), guards))
        label = "baseline" if v.phase == "baseline" else f"attempt {v.attempt}"
        if v.counts.get("rerun"):
            label += f", rerun {v.counts['rerun']} of the failed tests"
        rows.append(
            VerifyRow(
                label=label,
                result="passed" if v.passed else "failed",
                tone="ok"
                if v.passed
                else ""
                if v.phase == "baseline"
                else "bad",  # the task's start
                exit_code="—" if v.exit_code is None else str(v.exit_code),
                tests=_tests(v.counts),
                command=v.command,
            )
        )
    rows += [_not_run(n, guards) for n in missing]
    return rows


def _not_run(attempt: int, guards: dict[int, list[tuple[str, str]]]) -> VerifyRow:
    used = guards.get(attempt) or []
    if used:
        names = ", ".join(dict.fromkeys(g for g, _ in used))
        files = ", ".join(f for _, f in used if f)
        note = (
            f"guard {names} violated: the change to {files} was reverted and the model "
            "was asked again"
        )
    else:
        note = "a guard was violated: the model was asked again without a verify run"
    return VerifyRow(f"attempt {attempt}", "not run", "warn", "—", "", "", note)
