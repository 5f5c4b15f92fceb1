"""Whether a verify run after the agent could judge the change at all.

An exit code of 0 says little by itself: code under test that ends the process early
(``os._exit(0)`` at import) makes pytest exit 0 without running a test or writing its report.
When the recipe promises per-test results (``verify.runner: pytest`` or ``verify.junit``), a
run after the agent that did not deliver them cannot pass:

* its report is missing or unreadable (at the baseline the same run is refused as invalid
  input: :func:`agentci.run.verify_runs.cannot_run_reason`);
* a full run's report holds none of the baseline's tests (a module that failed to import at
  the baseline is not a test: it has no test ids to find again).

The run is then failed with :attr:`~agentci.verify.run.VerifyRun.unjudged` saying why; the
task's reason and the model's next prompt repeat it (docs/verify.md, "How verify runs").
"""

from __future__ import annotations

from agentci.recipe.verify_config import Verify
from agentci.verify.run import VerifyRun


def baseline_tests(base: VerifyRun) -> set[str]:
    """The baseline's test ids, without modules that failed to import (``error``, no ``::``)."""
    return {t for t, o in base.tests.items() if not (o.outcome == "error" and "::" not in t)}


def judge(run: VerifyRun, baseline: VerifyRun | None, verify: Verify) -> None:
    """Fail ``run`` (a run after the agent) when it could not judge the change."""
    if verify.runner != "pytest" and not verify.junit:
        return  # only an exit code was promised
    if not run.junit_found:
        problem = run.junit_problem or "the command wrote no JUnit report"
        run.unjudged = f"{problem}: no test result to judge the change by"
    elif run.scope == "full" and baseline is not None and baseline.junit_found:
        before = baseline_tests(baseline)
        if before and not before & set(run.tests):
            run.unjudged = (
                f"none of the baseline's {len(before)} test(s) ran "
                f"(the report lists {len(run.tests)} test(s))"
            )
    if run.unjudged:
        run.passed = False
