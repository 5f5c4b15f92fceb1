"""A verify run after the agent that could not judge the change does not pass.

The code under test ends the process with status 0 before pytest writes its report
(``os._exit(0)`` at import), or a conftest makes pytest collect nothing and exit 0: an exit
code of 0 with no per-test result is no verdict. Each test runs a real task in-process on a
small real repository (``CALC``), a scripted model and real pytest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_helpers import CALC, run_task, user_prompts

from agentci.outcome import Status
from agentci.providers.scripted import Reply, call

EXITS = "import os\n\nos._exit(0)\n"  # calc ends the test process, status 0, before any report
PYTEST = {"command": "python -m pytest -q", "runner": "pytest", "attempts": 2}
JUNIT = {
    "command": "python -m pytest -q --junitxml=.agentci/v.xml",
    "junit": ".agentci/v.xml",
    "attempts": 2,
}
COLLECTS_NOTHING = (
    'collect_ignore_glob = ["tests/*"]\n\n\n'
    "def pytest_sessionfinish(session):\n    session.exitstatus = 0\n"
)
BASELINE = [
    "tests.test_calc::test_add",
    "tests.test_calc::test_mul",
    "tests.test_calc::test_sub",
]


def writes(path: str, content: str) -> list[Reply]:
    """A model that writes one file, then says it is done (twice: two attempts)."""
    edit = Reply(calls=[call("write_file", file_path=path, content=content)])
    return [edit, Reply(text="All green."), Reply(text="Still all green.")]


def run(repo_factory, tmp_path: Path, verify: dict, replies: list[Reply], weakened: str):
    recipe = {"prompt": "Fix the tests.", "verify": verify,
              "guards": {"weakened_tests": weakened}}  # fmt: skip
    return run_task(repo_factory(CALC), recipe, replies, tmp_path / "out")


@pytest.mark.parametrize(
    ("verify", "shown"),
    [(PYTEST, "verify-attempt2.xml"), (JUNIT, ".agentci/v.xml")],
    ids=["runner-pytest", "junit"],
)
def test_a_run_that_wrote_no_report_fails_the_task(repo_factory, tmp_path, verify, shown):
    done = run(repo_factory, tmp_path, verify, writes("calc/__init__.py", EXITS), "off")
    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert report.reason.startswith(
        "verify could not judge the change after 2 attempt(s): the command wrote no JUnit "
        "report at "
    ), report.reason
    assert report.reason.endswith(f"{shown}: no test result to judge the change by")
    assert {(e.exit_code, e.passed) for e in done.verify_events[1:]} == {(0, False)}
    told = [p for p in user_prompts(done.provider) if "Verify still fails" in p]
    assert len(told) == 1 and "verify cannot judge the change: the command wrote no" in told[0]


def test_baseline_tests_without_a_report_are_flagged_disappeared(repo_factory, tmp_path):
    done = run(repo_factory, tmp_path, PYTEST, writes("calc/__init__.py", EXITS), "on")
    findings = done.report.extra["weakened_tests"]["findings"]
    assert [(f["kind"], f["test"]) for f in findings] == [("disappeared", t) for t in BASELINE]
    assert findings[0]["detail"] == "no result any more (no readable report) (baseline: failed)"
    assert done.report.reason.startswith("weakened_tests: 3 finding(s): ")


def test_a_report_without_the_baseline_tests_fails_the_task(repo_factory, tmp_path):
    done = run(repo_factory, tmp_path, PYTEST, writes("conftest.py", COLLECTS_NOTHING), "off")
    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert report.reason == (
        "verify could not judge the change after 2 attempt(s): none of the baseline's 3 "
        "test(s) ran (the report lists 0 test(s))"
    )
    full = [e for e in done.verify_events if e.phase == "attempt" and e.scope == "full"]
    assert [(e.exit_code, e.passed) for e in full] == [(0, False), (0, False)]
