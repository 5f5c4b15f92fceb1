"""The verify and guard testcases of junit.xml, as plain data (the writer is reports/junit.py).

* ``verify:<test id>`` for each test the baseline or the final verify run saw. The outcome is
  the final run's; a test only the baseline ran is ``skipped`` ("not run any more"). The
  case's ``status`` attribute says what the agent did to it: ``fixed``, ``still_failing``,
  ``regressed``, ``added``, ``added_failing``, ``removed``, ``flaky`` or ``unchanged``
  (``baseline`` when no attempt ran, e.g. the baseline already passed).
* ``guard:<name>`` for each guard the recipe sets: passed, or a failure naming the files
  (and whether agentci reverted them). ``guard:weakened_tests`` is there too when it has
  findings although the recipe does not set it (it is on by default), failing and naming the
  tests; with ``weakened_tests: report`` it is ``skipped``, with the findings as its message.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentci.events.verify_events import VerifyResult
from agentci.reports.report import TaskReport


@dataclass
class CaseInfo:
    """One testcase: ``outcome`` is passed / failed / error / skipped."""

    name: str
    outcome: str
    message: str = ""
    status: str = ""


#: The categories a final run's test can be in, the first that holds it winning.
_ORDER = ("fixed", "regressed", "flaky", "still_failing", "added_failing", "added")


def _categories(final: VerifyResult) -> dict[str, str]:
    """Each test id of ``final.changes`` and its category (the first of :data:`_ORDER` that
    lists it), made once: one lookup per test, never a search of the lists."""
    found: dict[str, str] = {}
    for name in reversed(_ORDER):
        found.update(dict.fromkeys(final.changes.get(name, []), name))
    return found


def verify_cases(task: TaskReport) -> list[CaseInfo]:
    """``verify:<id>`` cases from the task's baseline and final verify runs."""
    if not task.verify:
        return []
    base = next((r for r in task.verify if r.phase == "baseline"), None)
    final = task.verify[-1]
    cases = []
    seen = set()
    categories = {} if final.phase == "baseline" else _categories(final)
    for test in final.tests:
        seen.add(test.id)
        status = "baseline" if final.phase == "baseline" else categories.get(test.id, "unchanged")
        message = test.message
        if status in ("fixed", "regressed", "flaky"):
            message = f"{status}. {message}".strip()
        cases.append(CaseInfo(f"verify:{test.id}", test.outcome, message, status))
    for test in base.tests if base is not None and base is not final else []:
        if test.id not in seen:
            note = f"not run by the final verify (baseline: {test.outcome})"
            cases.append(CaseInfo(f"verify:{test.id}", "skipped", note, "removed"))
    return cases


def guard_cases(task: TaskReport) -> list[CaseInfo]:
    """``guard:<name>`` cases from ``task.extra["guards"]`` (written by agentci.run.verify_stage)."""
    cases = []
    for guard in task.extra.get("guards") or []:
        if guard.get("passed") and guard.get("message"):  # weakened_tests: report
            cases.append(
                CaseInfo(f"guard:{guard['name']}", "skipped", guard["message"], "reported")
            )
            continue
        if guard.get("passed"):
            cases.append(CaseInfo(f"guard:{guard['name']}", "passed", status="passed"))
            continue
        message = guard.get("message") or "violated"
        if guard.get("reverted"):
            message += f" (reverted, not in the patch: {', '.join(guard['reverted'])})"
        cases.append(CaseInfo(f"guard:{guard['name']}", "failed", message, "violated"))
    return cases
