"""The shipped recipes, end to end: the real ``agentci`` command on small real repos, with the
recipe's model swapped for a scripted one (no network). JUnit and result.json parsed back."""

from __future__ import annotations

import subprocess
from pathlib import Path

from verify_helpers import CALC, IGNORE, case_status, edit, junit_cases, run_shipped

from agentci.events import types as ev

ADD = "tests.test_calc::test_add"
MUL = "tests.test_calc::test_mul"


def test_fix_failing_tests_two_fixed(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    replies = [
        edit("calc/__init__.py", "    return a + b\n", "    return a * b\n"),
        edit("calc/__init__.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"),
        {"text": "add subtracted and mul added; both fixed."},
    ]  # fmt: skip
    run = run_shipped("fix-failing-tests", repo, replies, tmp_path)
    assert run.code == 0, run.stderr
    result = run.result
    assert result["status"] == "success"
    task = result["tasks"][0]
    assert task["extra"]["verify"]["fixed"] == [ADD, MUL]
    assert task["verify"]["passed"] is True
    assert [g["name"] for g in task["extra"]["guards"]] == [
        "forbid_test_edits", "max_changed_files", "max_changed_lines",
    ]  # fmt: skip
    cases = junit_cases(run.out / "junit.xml")
    fixed = sorted(n for n, c in cases.items() if case_status(c) == "fixed")
    assert fixed == [f"verify:{ADD}", f"verify:{MUL}"]
    assert cases["guard:forbid_test_edits"].is_passed and cases["agent"].is_passed
    verify = [e for e in run.events if isinstance(e, ev.VerifyResult)]
    assert [(e.phase, e.scope) for e in verify] == [
        ("baseline", "full"), ("attempt", "failing_first"), ("attempt", "full"),
    ]  # the failing tests first (runner: pytest's default), then the whole suite  # fmt: skip
    # the patch applies to a fresh clone and only touches the code
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "apply", str(run.out / "patch.diff")], cwd=clone, check=True)
    assert (clone / "calc" / "__init__.py").read_text() == (
        repo / "calc" / "__init__.py"
    ).read_text()
    assert "tests/" not in run.patch


def test_fix_failing_tests_insisting_on_test_edits_fails(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    cheat = edit(
        "tests/test_calc.py",
        "def test_add():\n",
        "import pytest\n\n\n@pytest.mark.skip\ndef test_add():\n",
    )
    replies = [cheat, {"text": "skipped it"}, cheat, {"text": "skipped it again"}]  # fmt: skip
    run = run_shipped("fix-failing-tests", repo, replies, tmp_path, verify={"attempts": 2})
    assert run.code == 1, run.stderr
    assert run.result["status"] == "verify_failed"
    assert "guard forbid_test_edits" in run.result["reason"]
    assert run.patch == ""
    cases = junit_cases(run.out / "junit.xml")
    assert not cases["guard:forbid_test_edits"].is_passed
    assert not cases[f"verify:{ADD}"].is_passed  # the reverted tree still fails


def test_fix_lint_with_ruff(repo_factory, tmp_path: Path):
    repo = repo_factory(
        {"app.py": "import os\nimport sys\n\nprint(sys.argv)\n", ".gitignore": IGNORE}
    )
    replies = [edit("app.py", "import os\nimport sys\n", "import sys\n"), {"text": "removed os"}]
    run = run_shipped("fix-lint", repo, replies, tmp_path)
    assert run.code == 0, run.stderr
    verify = [e for e in run.events if isinstance(e, ev.VerifyResult)]
    assert [(e.phase, e.passed) for e in verify] == [("baseline", False), ("attempt", True)]
    assert "F401" in verify[0].output_tail
    assert run.result["changed_files"] == ["app.py"]
    assert not (repo / ".ruff_cache").exists()


def test_type_errors_with_mypy_gets_a_second_attempt(repo_factory, tmp_path: Path):
    code = "def half(x: int) -> int:\n    return x / 2\n\n\nLABEL: int = 'half'\n"
    repo = repo_factory({"calc.py": code, ".gitignore": IGNORE})
    replies = [
        edit("calc.py", "return x / 2", "return x // 2"),
        {"text": "integer division"},
        edit("calc.py", "LABEL: int = 'half'", "LABEL: str = 'half'"),
        {"text": "LABEL is a str"},
    ]
    run = run_shipped("type-errors", repo, replies, tmp_path)
    assert run.code == 0, run.stderr
    verify = [e for e in run.events if isinstance(e, ev.VerifyResult)]
    assert [(e.phase, e.attempt, e.passed) for e in verify] == [
        ("baseline", 0, False), ("attempt", 1, False), ("attempt", 2, True),
    ]  # fmt: skip
    assert "Incompatible types in assignment" in verify[1].output_tail
    assert not (repo / ".mypy_cache").exists()


def test_a_green_repo_exits_0_without_calling_the_model(repo_factory, tmp_path: Path):
    repo = repo_factory({"tests/test_ok.py": "def test_ok():\n    pass\n", ".gitignore": IGNORE})
    run = run_shipped("fix-failing-tests", repo, [], tmp_path)  # an empty script: no model call
    assert run.code == 0, run.stderr
    assert run.result["status"] == "success" and run.result["usage"]["model_calls"] == 0
    assert "already passes" in run.result["reason"]


def test_review_diff_hands_in_findings_and_changes_nothing(repo_factory, tmp_path: Path):
    repo = repo_factory({"calc.py": "def add(a, b):\n    return a + b\n"})
    subprocess.run(["git", "checkout", "-q", "-b", "feature"], cwd=repo, check=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    subprocess.run(["git", "add", "calc.py"], cwd=repo, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "change"],
        cwd=repo,
        check=True,
    )
    finding = {"file": "calc.py", "line": 2, "severity": "error", "message": "add subtracts"}
    answer = {"summary": "Changes add; it now subtracts.", "findings": [finding]}
    replies = [
        {"calls": [{"name": "run_shell_command", "args": {"command": "git diff main...HEAD"}}]},
        {"calls": [{"name": "submit_result", "args": {**answer, "findings": [{**finding, "line": 0}]}}]},
        {"calls": [{"name": "submit_result", "args": answer}]},
    ]  # fmt: skip
    run = run_shipped(
        "review-diff", repo, replies, tmp_path, parameters={"base": {"default": "main"}}
    )
    assert run.code == 0, run.stderr
    diff = next(e for e in run.events if isinstance(e, ev.ToolCallResponse))
    assert "-    return a + b\n+    return a - b" in diff.output
    responses = [e for e in run.events if isinstance(e, ev.ToolCallResponse)]
    assert "at $.findings[0].line: 0 is less than the minimum of 1" in responses[1].error
    assert run.result["status"] == "no_changes" and run.result["output"] == answer
    assert run.patch == ""
