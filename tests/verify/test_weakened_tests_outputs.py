"""The weakened_tests guard in a run's outputs: ``agentci run`` in a subprocess, a scripted
model that deletes the failing test instead of fixing the code, real pytest as verify.

What a pipeline reads: exit 1, result.json's status and reason, a failing
``guard:weakened_tests`` testcase naming the test (parsed back with junitparser), and the
"Weakened tests" sections of summary.md and report.html.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_helpers import CALC, VERIFY_ENV, edit, junit_cases, without_plugin_autoload

from agentci.testing.case import write_case

ADD = "tests.test_calc::test_add"
DELETE_ADD = edit("tests/test_calc.py", "def test_add():\n    assert add(2, 3) == 5\n", "")
FIX_MUL = edit("calc/__init__.py", "    return a + b\n", "    return a * b\n")


def _run(tmp_path: Path, mode: str | None):
    guards = {} if mode is None else {"guards": {"weakened_tests": mode}}
    recipe = {
        "prompt": "Fix the tests.",
        "verify": {"command": "python -m pytest -q", "runner": "pytest", "attempts": 1},
        "policy": without_plugin_autoload(None),
        **guards,
    }
    case = write_case(tmp_path, [DELETE_ADD, FIX_MUL, {"text": "All green."}], recipe, CALC)
    return case.run("-q", env=VERIFY_ENV)


@pytest.fixture(scope="module")
def on_by_default(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("on"), None)


def test_the_run_fails_with_reason_weakened_tests(on_by_default):
    run = on_by_default
    assert run.code == 1, run.stderr
    result = run.result
    assert result["status"] == "verify_failed"
    task = result["tasks"][0]
    assert task["reason"] == (
        f"weakened_tests: 1 finding(s): {ADD}: not run any more (baseline: failed)"
    )
    assert task["extra"]["weakened_tests"]["findings"] == [
        {"kind": "disappeared", "test": ADD, "detail": "not run any more (baseline: failed)"}
    ]
    assert task["verify"]["passed"] is True  # the trick made verify pass


def test_junit_has_a_failing_guard_case_naming_the_test(on_by_default):
    cases = junit_cases(on_by_default.out / "junit.xml")
    guard = cases["guard:weakened_tests"]
    assert not guard.is_passed
    assert ADD in guard.result[0].message
    assert not cases["agent"].is_passed


def test_summary_and_report_show_the_findings(on_by_default):
    summary = (on_by_default.out / "summary.md").read_text()
    assert "### Weakened tests" in summary
    assert f"- `{ADD}`: not run any more (baseline: failed)" in summary
    html = (on_by_default.out / "report.html").read_text()
    assert "<h3>Weakened tests</h3>" in html
    assert f"<code>{ADD}</code></td><td>not run any more (baseline: failed)</td>" in html


def test_report_mode_lists_them_in_junit_as_skipped_and_the_run_passes(tmp_path):
    run = _run(tmp_path, "report")
    assert run.code == 0, run.stderr
    assert run.result["status"] == "success"
    guard = junit_cases(run.out / "junit.xml")["guard:weakened_tests"]
    assert guard.is_skipped and ADD in guard.result[0].message
    assert "reported only" in (run.out / "summary.md").read_text()
