"""``verify.strategy: failing_first``: between attempts the failing tests (and those of the
changed files) run first, the full suite only once they pass, and the verdict is always the
full suite's — the same verdict as ``full``, on real repositories with real pytest."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_helpers import CALC, SHARED, fix, run_task, user_prompts

from agentci.outcome import Status
from agentci.providers.scripted import Reply
from agentci.recipe.verify_config import Verify
from agentci.verify.selection import strategy_of

# each test runs the same task twice (failing_first, full) with real pytest: several runs each
pytestmark = pytest.mark.timeout(300)

PROMPT = "Fix the tests.\n{{ verify.failures }}"
FIX_ADD = fix(
    "calc/__init__.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"
)
FIX_MUL = fix("calc/__init__.py", "    return a + b\n", "    return a * b\n")
BREAK_SUB = fix("calc/__init__.py", "def _combine(a, b):\n    return a - b",
                "def _combine(a, b):\n    return a + b")  # fmt: skip
ADD, SUB, MUL = (f"tests.test_calc::test_{n}" for n in ("add", "sub", "mul"))


def _verify(strategy: str, **more: object) -> dict[str, object]:
    return {"command": "python -m pytest -q", "runner": "pytest", "strategy": strategy, **more}


def _runs(done) -> list[tuple[int, str, bool, int]]:
    """(attempt, scope, passed, tests run) of every verify run, reruns included."""
    return [(e.attempt, e.scope, e.passed, e.counts.get("total", 0)) for e in done.verify_events]


def _verdict(done) -> tuple[Status, int, str, list[str], list[str]]:
    extra = done.report.extra["verify"]
    return (done.report.status, done.report.exit_code, done.report.reason,
            extra["fixed"], extra["regressed"])  # fmt: skip


def _both(repo_factory, tmp_path: Path, files, replies, **verify: object):
    """The same task under ``failing_first`` and under ``full``, each on its own repository."""
    return [
        run_task(
            repo_factory(files),
            {"prompt": PROMPT, "verify": _verify(s, **verify)},
            list(replies),
            tmp_path / s,
        )  # fmt: skip
        for s in ("failing_first", "full")
    ]


def test_a_right_fix_runs_the_failing_tests_then_the_full_suite_once(repo_factory, tmp_path):
    first, full = _both(repo_factory, tmp_path, CALC, [FIX_MUL, FIX_ADD, Reply(text="Fixed.")])
    assert _verdict(first) == _verdict(full) == (Status.success, 0, "", [ADD, MUL], [])
    assert _runs(first) == [(0, "full", False, 3), (1, "failing_first", True, 2),
                            (1, "full", True, 3)]  # fmt: skip
    assert _runs(full) == [(0, "full", False, 3), (1, "full", True, 3)]
    assert [(v.phase, v.scope, v.passed) for v in first.report.verify] == [
        ("baseline", "full", False), ("attempt", "full", True)]  # fmt: skip
    extra = first.report.extra["verify"]
    assert (
        extra["strategy"] == "failing_first" and full.report.extra["verify"]["strategy"] == "full"
    )
    assert extra["runs"] == [{"attempt": 1, "scope": "failing_first", "passed": True, "tests": 2},
                             {"attempt": 1, "scope": "full", "passed": True, "tests": 3}]  # fmt: skip
    assert extra["counts"] == full.report.extra["verify"]["counts"]  # the full run's


def test_a_regression_outside_the_selection_is_caught_by_the_full_run(repo_factory, tmp_path):
    """The fix makes the failing test pass but breaks test_sub, which the selection does not
    hold: the full run catches it, and after the model gives up the task fails as under full."""
    replies = [BREAK_SUB, Reply(text="Fixed add."), Reply(text="I keep it.")]
    first, full = _both(repo_factory, tmp_path, SHARED, replies, attempts=2)
    assert _verdict(first) == _verdict(full)
    assert _verdict(first)[:2] == (Status.verify_failed, 1) and _verdict(first)[4] == [SUB]
    assert _runs(first) == [
        (0, "full", False, 3),
        (1, "failing_first", True, 1),  # test_add alone: it passes now
        (1, "full", False, 3), (1, "full", False, 3),  # test_sub regressed, confirmed by a rerun
        (2, "full", False, 3), (2, "full", False, 3),  # the last attempt: the full suite only
    ]  # fmt: skip
    assert "REGRESSED" in user_prompts(first.provider)[1]


def test_a_regression_is_in_the_next_selection_and_its_fix_wins(repo_factory, tmp_path):
    replies = [BREAK_SUB, Reply(text="Fixed add."),
               fix("calc/__init__.py", "def sub(a, b):\n    return _combine(a, b)",
                   "def sub(a, b):\n    return a - b"),
               Reply(text="sub no longer uses _combine.")]  # fmt: skip
    first, full = _both(repo_factory, tmp_path, SHARED, replies)
    assert _verdict(first) == _verdict(full) == (Status.success, 0, "", [ADD], [])
    assert _runs(first)[-2:] == [(2, "failing_first", True, 2), (2, "full", True, 3)]


def test_failing_tests_that_still_fail_go_back_without_a_full_run(repo_factory, tmp_path):
    replies = [FIX_MUL, Reply(text="Fixed mul."), FIX_ADD, Reply(text="Fixed add too.")]
    first, full = _both(repo_factory, tmp_path, CALC, replies)
    assert _verdict(first) == _verdict(full) == (Status.success, 0, "", [ADD, MUL], [])
    assert _runs(first) == [
        (0, "full", False, 3),
        (1, "failing_first", False, 2),  # test_add still fails: no full run
        (2, "failing_first", True, 2), (2, "full", True, 3),
    ]  # fmt: skip
    feedback = user_prompts(first.provider)[1]
    assert "Only the tests that failed before" in feedback and ADD in feedback


def test_a_test_id_is_data_never_shell_text(repo_factory, tmp_path):
    """A failing test whose parameter is shell syntax is selected by its id; nothing runs it
    as a command."""
    marker = tmp_path / "pwned"
    files = {**CALC, "tests/test_odd.py": (
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('x', ['$(touch {marker})', 'a b; touch {marker}'])\n"
        "def test_odd(x):\n    assert x == 'fixed'\n")}  # fmt: skip
    fix_odd = fix("tests/test_odd.py", "assert x == 'fixed'", "assert x")
    done = run_task(repo_factory(files), {"prompt": PROMPT, "verify": _verify("failing_first")},
                    [FIX_MUL, FIX_ADD, fix_odd, Reply(text="done")], tmp_path / "o")  # fmt: skip
    assert done.report.status is Status.success, done.report.reason
    assert _runs(done)[1] == (1, "failing_first", True, 4)  # add, mul and both odd ids
    assert not marker.exists()


def test_a_generated_suite_of_400_tests_gets_the_same_verdict(repo_factory, tmp_path):
    """20 modules of 20 trivial tests; one module's 20 tests fail until the model fixes the
    value they check: the failing-first run holds those 20 alone."""
    files = {"gen/__init__.py": "", "gen/value.py": "VALUE = 0\n", ".gitignore": "__pycache__/\n"}
    for m in range(20):
        check = "VALUE == 1" if m == 7 else "True"
        body = "".join(f"\n\ndef test_{t}():\n    assert {check}\n" for t in range(20))
        files[f"tests/test_m{m:02d}.py"] = "from gen.value import VALUE\n" + body
    replies = [fix("gen/value.py", "VALUE = 0", "VALUE = 1"), Reply(text="Set VALUE.")]
    first, full = _both(repo_factory, tmp_path, files, replies)
    assert _verdict(first)[:2] == _verdict(full)[:2] == (Status.success, 0)
    assert len(_verdict(first)[3]) == len(_verdict(full)[3]) == 20  # fixed
    assert _runs(first) == [(0, "full", False, 400), (1, "failing_first", True, 20),
                            (1, "full", True, 400)]  # fmt: skip
    assert _runs(full) == [(0, "full", False, 400), (1, "full", True, 400)]


def test_failing_first_is_the_default_for_pytest_and_falls_back_to_full_elsewhere():
    assert strategy_of(Verify(command="pytest", runner="pytest")) == "failing_first"
    assert strategy_of(Verify(command="pytest", runner="pytest", strategy="full")) == "full"
    junit = Verify(command="make test", junit="out.xml", strategy="failing_first")
    assert strategy_of(junit) == "full"
    assert strategy_of(Verify(command="make test")) == "full"
