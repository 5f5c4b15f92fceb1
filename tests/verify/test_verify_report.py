"""Verify's JUnit report: written where the recipe says, even in a folder that is read-only in
the sandbox, and read back by the host as data (no link followed, nothing written back)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from verify_helpers import CALC, PATH_ENV, verify_child_env

from agentci.policy.sandbox import Sandbox, bwrap_problem, make_sandbox
from agentci.recipe.verify_config import Verify
from agentci.verify.run import VerifyRun, run_verify

PYTEST = "python -m pytest -q -p no:cacheprovider"
#: A host file outside the workspace, shaped like a JUnit report whose test name is a secret.
SECRET_REPORT = '<testsuite><testcase classname="host" name="secret-d41d8cd9"/></testsuite>\n'


def _run(repo: Path, tmp: Path, sandbox: Sandbox | None = None, **verify: object) -> VerifyRun:
    tmp.mkdir(exist_ok=True)
    env = verify_child_env(tmp)
    spec = Verify.model_validate(verify)
    return asyncio.run(
        run_verify(spec, workspace=repo, env=env, tmp_dir=tmp, label="t", sandbox=sandbox)
    )


def _sandbox(repo: Path) -> Sandbox:
    if bwrap_problem() is not None:
        pytest.skip(f"needs bubblewrap: {bwrap_problem()}")
    box, _ = make_sandbox("bwrap", workspace=repo, network=False, env=PATH_ENV)
    assert box is not None
    return box


def _files(repo: Path, folder: str) -> dict[str, str]:
    return {
        str(p.relative_to(repo)): p.read_text()
        for p in sorted((repo / folder).rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("report", [".agentci/verify.xml", ".agentci/reports/verify.xml"])
def test_a_report_under_agentci_is_written_in_the_sandbox_and_read_back(
    repo_factory, tmp_path: Path, report: str
) -> None:
    repo = repo_factory({**CALC, ".agentci/recipe.yaml": "name: x\n"})
    box = _sandbox(repo)
    try:
        run = _run(repo, tmp_path / "t", box, command=f"{PYTEST} --junitxml={report}", junit=report)
    finally:
        box.cleanup()
    assert run.junit_found, run.junit_problem + run.output
    assert run.failing == ["tests.test_calc::test_add", "tests.test_calc::test_mul"]
    assert _files(repo, ".agentci") == {".agentci/recipe.yaml": "name: x\n"}  # untouched


def test_a_report_in_the_workspace_is_read_in_the_sandbox_then_removed(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory(CALC)
    box = _sandbox(repo)
    try:
        cmd = f"{PYTEST} --junitxml=reports/junit.xml"
        run = _run(repo, tmp_path / "t", box, command=cmd, junit="reports/junit.xml")
    finally:
        box.cleanup()
    assert run.junit_found and len(run.tests) == 3
    assert not (repo / "reports" / "junit.xml").exists()


def test_a_report_path_that_is_a_link_is_neither_read_nor_written_back(
    repo_factory, tmp_path: Path
) -> None:
    """The agent leaves ``reports/junit.xml`` → a host file: agentci must not read it as "the
    file that was there before" and write its content back into the workspace."""
    secret = tmp_path / "host-secret.xml"
    secret.write_text(SECRET_REPORT)
    repo = repo_factory(CALC)
    (repo / "reports").mkdir()
    (repo / "reports" / "junit.xml").symlink_to(secret)
    run = _run(repo, tmp_path / "t", command="true", junit="reports/junit.xml")
    assert not run.junit_found and "wrote no JUnit report" in run.junit_problem
    assert not (repo / "reports" / "junit.xml").exists()  # the link is gone, nothing in its place
    assert secret.read_text() == SECRET_REPORT
    assert all("secret-d41d8cd9" not in p.read_text() for p in repo.rglob("*.xml"))


@pytest.mark.parametrize(
    "verify",
    [
        {"junit": "reports/junit.xml", "command": f"{PYTEST} --junitxml=reports/junit.xml"},
        {"runner": "pytest", "command": PYTEST},
    ],
    ids=["junit", "runner-pytest"],
)
def test_a_report_the_tests_turned_into_a_link_is_not_followed(
    repo_factory, tmp_path: Path, verify: dict[str, str]
) -> None:
    """A conftest.py (the agent's) swaps the finished report for a link to a host file."""
    secret = tmp_path / "host-secret.xml"
    secret.write_text(SECRET_REPORT)
    swap = (
        "import os\n\n\n"
        "def pytest_unconfigure(config):\n"
        "    path = config.option.xmlpath\n"
        "    os.unlink(path)\n"
        f"    os.symlink({str(secret)!r}, path)\n"
    )
    repo = repo_factory({**CALC, "conftest.py": swap})
    run = _run(repo, tmp_path / "t", **verify)
    assert not run.junit_found
    assert "a symbolic link (or a path through one), not followed" in run.junit_problem
    assert run.tests == {}  # nothing of the host file became a test
    assert secret.read_text() == SECRET_REPORT
    assert not (repo / "reports" / "junit.xml").exists()


def test_a_report_that_is_a_fifo_is_refused_without_hanging(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory(CALC)
    run = _run(repo, tmp_path / "t", command="mkfifo report.xml", junit="report.xml")
    assert not run.junit_found and "not a regular file" in run.junit_problem
    assert not (repo / "report.xml").exists()


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.xml", "a/../../b.xml"])
def test_a_junit_path_outside_the_workspace_is_a_recipe_error(path: str) -> None:
    with pytest.raises(ValueError, match="relative to the workspace"):
        Verify.model_validate({"command": "true", "junit": path})
