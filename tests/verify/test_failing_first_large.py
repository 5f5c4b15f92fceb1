"""``verify.strategy: failing_first`` on a large suite: a selection whose test modules hold most
of the suite is not run apart (it would collect nearly everything a full run collects); the
attempt runs the full suite directly, with the same verdict and JUnit report as ``full``. Real
repositories, real pytest."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_helpers import case_status, fix, junit_cases, run_task

from agentci.outcome import Status
from agentci.providers.scripted import Reply
from agentci.reports.junit import write_junit
from agentci.reports.report import RunReport
from agentci.verify.selection import LARGE, Selection, collects_most, module_of

# each test runs a task with real pytest on 1,000+ tests, several runs each
pytestmark = pytest.mark.timeout(300)

PROMPT = "Fix the tests.\n{{ verify.failures }}"
SET_VALUE = fix("gen/value.py", "VALUE = 0", "VALUE = 1")


def _suite(sizes: list[int], broken: int) -> dict[str, str]:
    """Test modules ``tests/test_mNN.py`` of ``sizes[NN]`` trivial tests each; the first two
    tests of module ``broken`` fail until ``gen/value.py`` says ``VALUE = 1`` (few failures:
    pytest formats each one, which takes long)."""
    files = {"gen/__init__.py": "", "gen/value.py": "VALUE = 0\n", ".gitignore": "__pycache__/\n"}
    for m, size in enumerate(sizes):
        checks = ["VALUE == 1" if m == broken and t < 2 else "True" for t in range(size)]
        body = "".join(f"\n\ndef test_{t}():\n    assert {c}\n" for t, c in enumerate(checks))
        files[f"tests/test_m{m:02d}.py"] = "from gen.value import VALUE\n" + body
    return files


def _runs(done) -> list[tuple[int, str, bool, int]]:
    return [(e.attempt, e.scope, e.passed, e.counts.get("total", 0)) for e in done.verify_events]


def _task(repo_factory, tmp_path: Path, files: dict[str, str], strategy: str, replies):
    verify = {"command": "python -m pytest -q", "runner": "pytest", "strategy": strategy}
    return run_task(repo_factory(files), {"prompt": PROMPT, "verify": verify}, list(replies),
                    tmp_path / strategy)  # fmt: skip


def _junit(done, path: Path) -> list[tuple[str, bool, str]]:
    """(name, passed, status) of every testcase of the task's junit.xml, written at ``path``."""
    report = done.report
    write_junit(path, RunReport("r1", "recipe.yaml", "t", report.status, report.exit_code,
                                tasks=[report]))  # fmt: skip
    return sorted((n, c.is_passed, case_status(c)) for n, c in junit_cases(path).items())


def test_a_selection_holding_most_of_a_large_suite_runs_the_full_suite_directly(
    repo_factory, tmp_path
):
    """The module of the two failing tests holds 900 of 1,000 tests: the attempt runs the full
    suite once, as under ``full``, and reports the same verdict, counts and junit.xml."""
    files = _suite([900, 50, 50], broken=0)
    replies = [SET_VALUE, Reply(text="Set VALUE.")]
    first = _task(repo_factory, tmp_path, files, "failing_first", replies)
    full = _task(repo_factory, tmp_path, files, "full", replies)
    assert _runs(first) == _runs(full) == [(0, "full", False, 1000), (1, "full", True, 1000)]
    assert first.report.status is full.report.status is Status.success
    verdict = first.report.extra["verify"]
    assert (verdict["counts"], verdict["fixed"]) == (
        full.report.extra["verify"]["counts"], full.report.extra["verify"]["fixed"])  # fmt: skip
    assert verdict["counts"] == {"total": 1000, "passed": 1000, "failed": 0, "error": 0,
                                 "skipped": 0}  # fmt: skip
    cases = _junit(first, tmp_path / "first.xml")
    assert cases == _junit(full, tmp_path / "full.xml")
    assert len(cases) == 1001  # the agent's case and every test's
    assert [n for n, passed, status in cases if passed and status == "fixed"] == [
        "verify:tests.test_m00::test_0", "verify:tests.test_m00::test_1"]  # fmt: skip


def test_a_failing_full_run_in_place_of_the_selection_goes_back_to_the_model(
    repo_factory, tmp_path
):
    """A wrong first fix: the full run (no selection) fails, its failures go back to the
    model, whose second fix passes the next full run."""
    files = _suite([900, 100], broken=0)
    wrong = fix("gen/value.py", "VALUE = 0", "VALUE = 2")
    right = fix("gen/value.py", "VALUE = 2", "VALUE = 1")
    done = _task(repo_factory, tmp_path, files, "failing_first",
                 [wrong, Reply(text="Set it."), right, Reply(text="Set it right.")])  # fmt: skip
    assert done.report.status is Status.success
    assert _runs(done) == [(0, "full", False, 1000), (1, "full", False, 1000),
                           (2, "full", True, 1000)]  # fmt: skip


def test_a_selection_holding_a_minority_of_a_large_suite_still_runs_first(repo_factory, tmp_path):
    """The module of the two failing tests holds 100 of 1,000 tests: the selection runs
    first (those two tests), then the full suite."""
    files = _suite([100, 900], broken=0)
    done = _task(repo_factory, tmp_path, files, "failing_first",
                 [SET_VALUE, Reply(text="Set VALUE.")])  # fmt: skip
    assert done.report.status is Status.success
    assert _runs(done) == [(0, "full", False, 1000), (1, "failing_first", True, 2),
                           (1, "full", True, 1000)]  # fmt: skip


def test_the_module_of_a_junit_id_drops_class_names():
    assert module_of("tests.test_idna_uts46.UTS46Tests::test_uts46_106") == "tests.test_idna_uts46"
    assert module_of("tests.test_x.TestA.TestB::test_y[1-a.B]") == "tests.test_x"
    assert module_of("tests.test_x::test_y") == "tests.test_x"
    assert module_of("test_y") == ""


def test_most_is_counted_over_the_modules_of_the_ids_and_the_changed_files(tmp_path):
    suite = [f"tests.test_a::test_{i}" for i in range(700)]
    suite += [f"tests.test_b.TestB::test_{i}" for i in range(200)]
    suite += [f"tests.test_c::test_{i}" for i in range(100)]
    assert len(suite) == LARGE
    ids = Selection(ids=["tests.test_a::test_3"])
    assert not collects_most(ids, suite, tmp_path)  # 700 of 1,000
    both = Selection(ids=["tests.test_a::test_3"], files=[str(tmp_path / "tests/test_b.py")])
    assert collects_most(both, suite, tmp_path)  # 900 of 1,000
    assert not collects_most(both, suite[:-1], tmp_path)  # a suite under LARGE: never
