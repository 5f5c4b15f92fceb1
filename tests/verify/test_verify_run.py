"""Running verify for real: pytest in a subprocess, JUnit parsed back, the workspace untouched."""

from __future__ import annotations

import asyncio
from pathlib import Path

from verify_helpers import CALC, verify_child_env

from agentci.recipe.verify_config import Verify
from agentci.verify.feedback import failures_text, template_vars
from agentci.verify.run import parse_junit, run_verify


def _run(repo: Path, tmp: Path, **verify: object):
    env = verify_child_env(tmp)
    spec = Verify.model_validate({"command": "python -m pytest -q", **verify})
    return asyncio.run(run_verify(spec, workspace=repo, env=env, tmp_dir=tmp, label="t"))


def test_pytest_runner_reads_per_test_outcomes_without_touching_the_workspace(
    repo_factory, tmp_path
):
    repo = repo_factory({k: v for k, v in CALC.items() if k != ".gitignore"})
    run = _run(repo, tmp_path, runner="pytest")
    assert not run.passed and run.exit_code == 1 and run.junit_found
    assert run.failing == ["tests.test_calc::test_add", "tests.test_calc::test_mul"]
    assert run.tests["tests.test_calc::test_sub"].outcome == "passed"
    assert run.counts() == {"total": 3, "passed": 1, "failed": 2, "error": 0, "skipped": 0}
    assert "assert -1 == 5" in run.tests["tests.test_calc::test_add"].detail
    # no caches, no report, no bytecode in the workspace (it would land in the patch)
    untracked = sorted(p.name for p in repo.rglob("*") if ".git" not in p.parts)
    assert untracked == ["__init__.py", "calc", "test_calc.py", "tests"]


def test_failures_text_names_tests_messages_and_trimmed_tracebacks(repo_factory, tmp_path):
    run = _run(repo_factory(CALC), tmp_path, runner="pytest")
    text = failures_text(run)
    assert text.startswith("2 failing test(s) from `python -m pytest -q`")
    assert "### tests.test_calc::test_add (failed)" in text
    assert "assert 7 == 12" in text  # mul(3, 4) returned 7
    variables = template_vars(run)
    assert variables["passed"] is False and variables["ran"] is True
    assert variables["failing"] == run.failing and "2 failed" in variables["output"]


def test_without_junit_only_pass_fail_and_the_output_tail(repo_factory, tmp_path):
    run = _run(repo_factory(CALC), tmp_path)
    assert not run.passed and run.tests == {} and not run.junit_found
    assert "2 failed, 1 passed" in failures_text(run)


def test_a_junit_path_in_the_workspace_is_read_then_restored(repo_factory, tmp_path):
    repo = repo_factory({**CALC, "report.xml": "committed\n"})
    run = _run(
        repo, tmp_path, command="python -m pytest -q -p no:cacheprovider --junitxml=report.xml",
        junit="report.xml",
    )  # fmt: skip
    assert run.junit_found and len(run.tests) == 3
    assert (repo / "report.xml").read_text() == "committed\n"


def test_a_missing_or_broken_report_is_noted_not_fatal(repo_factory, tmp_path):
    repo = repo_factory(CALC)
    run = _run(repo, tmp_path, command="true", junit="nope.xml")
    assert run.passed and "wrote no JUnit report" in run.junit_problem
    run = _run(repo, tmp_path, command="echo '<testsuite><oops' > bad.xml", junit="bad.xml")
    assert run.passed and "could not read" in run.junit_problem
    assert not (repo / "bad.xml").exists()


def test_a_timeout_fails_verify(repo_factory, tmp_path):
    run = _run(repo_factory(CALC), tmp_path, command="sleep 5", timeout_seconds=0.3)
    assert run.timed_out and not run.passed and "timed out" in failures_text(run)


def test_parse_junit_handles_nested_suites_errors_skips_and_duplicates(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(
        '<?xml version="1.0"?><testsuites><testsuite name="outer"><testsuite name="inner">'
        '<testcase classname="m" name="ok"/>'
        '<testcase classname="m" name="boom"><error message="E">trace</error></testcase>'
        '<testcase classname="m" name="skip"><skipped message="why"/></testcase>'
        '<testcase classname="m" name="twice"/>'
        '<testcase classname="m" name="twice"><failure message="F">t</failure></testcase>'
        "</testsuite></testsuite></testsuites>"
    )
    tests = parse_junit(report)
    assert {t.id: t.outcome for t in tests.values()} == {
        "m::ok": "passed", "m::boom": "error", "m::skip": "skipped", "m::twice": "failed",
    }  # fmt: skip
    assert tests["m::boom"].message == "E" and tests["m::boom"].detail == "trace"
