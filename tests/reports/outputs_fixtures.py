"""Report objects shared by the output writer tests (not a test module)."""

from __future__ import annotations

from agentci.events.verify_events import VerifyResult, VerifyTest
from agentci.outcome import Status
from agentci.reports.report import RunReport, TaskReport
from agentci.usage import Usage as UsageTotals


def verify(passed: bool, tests: list[tuple[str, str, str]]) -> VerifyResult:
    return VerifyResult(
        phase="attempt", attempt=1, command="pytest -q", exit_code=0 if passed else 1,
        passed=passed, counts={"passed": sum(t[1] == "passed" for t in tests)},
        tests=[VerifyTest(id=i, outcome=o, message=m) for i, o, m in tests],
    )  # fmt: skip


def task(
    name: str = "main", status: Status = Status.success, exit_code: int = 0, **kw
) -> TaskReport:
    kw.setdefault("usage", UsageTotals(prompt_tokens=1000, output_tokens=200, total_tokens=1200,
                                       cost_usd=0.0123, model_calls=3))  # fmt: skip
    return TaskReport(name=name, status=status, exit_code=exit_code, **kw)


def run(
    *tasks: TaskReport, status: Status | None = None, exit_code: int | None = None
) -> RunReport:
    last = tasks[-1] if tasks else None
    return RunReport(
        run_id="run-123", recipe="recipes/fix.yaml", recipe_name="fix-tests",
        status=status or (last.status if last else Status.internal_error),
        exit_code=exit_code if exit_code is not None else (last.exit_code if last else 70),
        reason=last.reason if last else "", tasks=list(tasks),
        usage=UsageTotals(prompt_tokens=1000, output_tokens=200, total_tokens=1200,
                          cost_usd=0.0123, model_calls=3),
        duration_ms=4200,
    )  # fmt: skip
