"""Verify and guards inside a real task run (in-process, scripted model, real pytest)."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import CALC, SHARED, case_status, fix, junit_cases, run_task, user_prompts

from agentci.outcome import Status
from agentci.providers.scripted import Reply
from agentci.reports.junit import write_junit
from agentci.reports.report import RunReport

#: every attempt runs the whole suite (failing_first: test_failing_first.py)
VERIFY = {"command": "python -m pytest -q", "runner": "pytest", "strategy": "full"}
PROMPT = "Fix the tests.\n{{ verify.failures }}"
FIX_ADD = fix(
    "calc/__init__.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"
)
FIX_MUL = fix("calc/__init__.py", "    return a + b\n", "    return a * b\n")
ADD = "tests.test_calc::test_add"
SUB = "tests.test_calc::test_sub"
MUL = "tests.test_calc::test_mul"


def test_two_failing_tests_fixed_is_success_with_two_fixed(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    replies = [FIX_MUL, FIX_ADD, Reply(text="Fixed add and mul.")]
    done = run_task(repo, {"prompt": PROMPT, "verify": VERIFY}, replies, tmp_path / "out")
    report = done.report
    assert report.status is Status.success and report.exit_code == 0, report.reason
    first_prompt = user_prompts(done.provider)[0]
    assert f"### {ADD} (failed)" in first_prompt and "assert 7 == 12" in first_prompt
    assert [(e.phase, e.attempt, e.passed) for e in done.verify_events] == [
        ("baseline", 0, False), ("attempt", 1, True),
    ]  # fmt: skip
    extra = report.extra["verify"]
    assert extra["fixed"] == [ADD, MUL] and extra["regressed"] == [] and extra["passed"]
    assert extra["baseline"]["failing"] == [ADD, MUL]
    # junit.xml: agent passes, 2 verify cases fixed, 1 unchanged — parsed back
    run = RunReport("r1", "recipe.yaml", "t", report.status, report.exit_code, tasks=[report])
    write_junit(tmp_path / "junit.xml", run)
    cases = junit_cases(tmp_path / "junit.xml")
    assert sorted(cases) == ["agent", f"verify:{ADD}", f"verify:{MUL}", f"verify:{SUB}"]
    assert [n for n, c in cases.items() if case_status(c) == "fixed"] == [
        f"verify:{ADD}", f"verify:{MUL}",
    ]  # fmt: skip
    assert all(c.is_passed for c in cases.values())
    assert "calc/__init__.py" in done.patch and "__pycache__" not in done.patch


def test_a_fix_that_breaks_another_test_is_sent_back_and_the_second_attempt_wins(
    repo_factory, tmp_path: Path
):
    repo = repo_factory(SHARED)
    replies = [
        fix("calc/__init__.py", "def _combine(a, b):\n    return a - b", "def _combine(a, b):\n    return a + b"),
        Reply(text="Fixed _combine."),
        fix("calc/__init__.py", "def sub(a, b):\n    return _combine(a, b)", "def sub(a, b):\n    return a - b"),
        Reply(text="sub no longer uses _combine."),
    ]  # fmt: skip
    done = run_task(repo, {"prompt": PROMPT, "verify": VERIFY}, replies, tmp_path / "out")
    assert done.report.status is Status.success, done.report.reason
    runs = [(e.phase, e.attempt, e.counts.get("rerun", 0), e.passed) for e in done.verify_events]
    assert runs == [
        ("baseline", 0, 0, False), ("attempt", 1, 0, False), ("attempt", 1, 1, False),
        ("attempt", 2, 0, True),
    ]  # fmt: skip
    assert done.verify_events[2].changes["regressed"] == [SUB]  # confirmed by the rerun
    feedback = user_prompts(done.provider)[1]
    assert "attempt 1 of 3" in feedback and "REGRESSED (passed before your change" in feedback
    assert SUB in feedback and "assert 8 == 2" in feedback
    assert done.report.extra["verify"]["fixed"] == [ADD]
    assert done.report.extra["verify"]["attempts"] == 2


def test_a_model_that_edits_the_tests_is_sent_back_then_fails_and_the_patch_is_clean(
    repo_factory, tmp_path: Path
):
    repo = repo_factory(CALC)
    weaken = fix("tests/test_calc.py", "assert add(2, 3) == 5", "assert add(2, 3) == -1")
    weaken_again = fix("tests/test_calc.py", "assert mul(3, 4) == 12", "assert mul(3, 4) == 7")
    replies = [weaken, FIX_MUL, Reply(text="done"), weaken_again, Reply(text="done again")]
    recipe = {
        "prompt": PROMPT, "verify": {**VERIFY, "attempts": 2},
        "guards": {"forbid_test_edits": ["tests/**"]},
    }  # fmt: skip
    done = run_task(repo, recipe, replies, tmp_path / "out")
    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert "guard forbid_test_edits" in report.reason and "tests/test_calc.py" in report.reason
    assert "reverted" in report.reason
    feedback = user_prompts(done.provider)[1]
    assert "forbid_test_edits" in feedback and "agentci has reverted" in feedback
    assert "tests/" not in done.patch and "a * b" in done.patch
    assert (repo / "tests" / "test_calc.py").read_text() == CALC["tests/test_calc.py"]
    # attempt 1 was a guard violation (no verify); attempt 2 verified the reverted tree
    assert [(e.phase, e.attempt) for e in done.verify_events] == [("baseline", 0), ("attempt", 2)]
    assert report.extra["verify"]["fixed"] == [MUL]
    guard = report.extra["guards"][0]
    assert guard["name"] == "forbid_test_edits" and not guard["passed"]
    assert guard["reverted"] == ["tests/test_calc.py"]
    run = RunReport("r1", "recipe.yaml", "t", report.status, report.exit_code, tasks=[report])
    write_junit(tmp_path / "junit.xml", run)
    cases = junit_cases(tmp_path / "junit.xml")
    assert not cases["agent"].is_passed and not cases["guard:forbid_test_edits"].is_passed
    assert "reverted" in cases["guard:forbid_test_edits"].result[0].message


def test_a_baseline_that_passes_ends_at_once_without_calling_the_model(repo_factory, tmp_path):
    files = dict(CALC)
    files["tests/test_calc.py"] = "def test_ok():\n    assert True\n"
    done = run_task(repo_factory(files), {"prompt": PROMPT, "verify": VERIFY}, [], tmp_path / "o")
    assert done.report.status is Status.success and done.report.exit_code == 0
    assert "already passes" in done.report.reason
    assert done.provider.requests == [] and done.report.turns == 0
    assert done.report.extra["verify"]["agent_skipped"] is True


def test_skip_if_passing_off_runs_the_agent_anyway(repo_factory, tmp_path):
    files = dict(CALC)
    files["tests/test_calc.py"] = "def test_ok():\n    assert True\n"
    verify = {**VERIFY, "skip_if_passing": False}
    done = run_task(
        repo_factory(files), {"prompt": PROMPT, "verify": verify}, [Reply(text="ok")], tmp_path
    )
    assert len(done.provider.requests) == 1
    assert done.report.status is Status.no_changes  # verify passes, but nothing changed


def test_verify_still_failing_after_all_attempts_is_verify_failed(repo_factory, tmp_path):
    replies = [FIX_MUL, Reply(text="done"), Reply(text="I give up")]
    verify = {**VERIFY, "attempts": 2}
    done = run_task(repo_factory(CALC), {"prompt": PROMPT, "verify": verify}, replies, tmp_path)
    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert report.reason == f"verify still fails after 2 attempt(s): 1 failing: {ADD}"
    assert report.extra["verify"]["still_failing"] == [ADD]
    assert "a * b" in done.patch  # the partial fix is still in the patch, for review


def test_a_flaky_regression_is_rerun_and_does_not_count(repo_factory, tmp_path: Path):
    # verify runs in the sandbox: its only writable place is the workspace (count is ignored)
    flaky = (
        "from pathlib import Path\n\n\n"
        "def test_flaky():\n"
        "    p = Path(__file__).parent.parent / 'count'\n"
        "    n = int(p.read_text()) if p.exists() else 0\n"
        "    p.write_text(str(n + 1))\n"
        "    assert n != 1  # fails on the second run only\n"
    )
    repo = repo_factory({**CALC, "tests/test_flaky.py": flaky, ".gitignore": "count\n"})
    replies = [FIX_MUL, FIX_ADD, Reply(text="done")]
    done = run_task(repo, {"prompt": PROMPT, "verify": VERIFY}, replies, tmp_path / "out")
    assert done.report.status is Status.success, done.report.reason
    extra = done.report.extra["verify"]
    assert extra["flaky"] == ["tests.test_flaky::test_flaky"] and extra["regressed"] == []


def test_without_reruns_a_regression_counts_at_once(repo_factory, tmp_path):
    repo = repo_factory(SHARED)
    breaking = fix("calc/__init__.py", "    return a - b", "    return a + b")
    verify = {**VERIFY, "attempts": 1, "rerun_failures": 0}
    done = run_task(
        repo, {"prompt": PROMPT, "verify": verify}, [breaking, Reply(text="d")], tmp_path
    )
    assert done.report.status is Status.verify_failed
    assert done.report.reason == f"verify: 1 test(s) regressed: {SUB}"
    assert len(done.verify_events) == 2  # baseline + one attempt, no rerun
