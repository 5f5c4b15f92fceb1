"""guards.weakened_tests: a change that makes the tests pass by weakening them fails the task.

Each test runs a real task in-process on a small real repository (``CALC``: add and mul are
wrong, sub is right), a scripted model and real pytest. The model "solves" the task by
weakening the tests instead of fixing calc, then keeps its weakening when told: the task ends
``verify_failed`` with the reason ``weakened_tests: …``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_helpers import CALC, TESTS, fix, run_task, user_prompts

from agentci.outcome import Status
from agentci.providers.scripted import Reply, call

VERIFY = {"command": "python -m pytest -q", "runner": "pytest", "attempts": 2}
PROMPT = "Fix the tests.\n{{ verify.failures }}"
ADD = "tests.test_calc::test_add"
MUL = "tests.test_calc::test_mul"
SUB = "tests.test_calc::test_sub"
FIX_ADD = fix(
    "calc/__init__.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"
)
FIX_MUL = fix("calc/__init__.py", "    return a + b\n", "    return a * b\n")
ADD_TEST = "def test_add():\n    assert add(2, 3) == 5\n"
MUL_TEST = "def test_mul():\n    assert mul(3, 4) == 12\n"


def write(path: str, content: str) -> Reply:
    """A scripted reply that writes one file."""
    return Reply(calls=[call("write_file", file_path=path, content=content)])


def weakening(*edits: Reply, recipe: dict[str, Any] | None = None) -> dict[str, Any]:
    """The recipe and the replies of a model that weakens, is told, and says it is done."""
    return {
        "recipe": {"prompt": PROMPT, "verify": VERIFY, **(recipe or {})},
        "replies": [*edits, Reply(text="All green."), Reply(text="Still all green.")],
    }


def run(repo_factory, tmp_path: Path, case: dict[str, Any], files: dict[str, str] | None = None):
    repo = repo_factory(files or CALC)
    return run_task(repo, case["recipe"], case["replies"], tmp_path / "out")


def kinds(done) -> set[tuple[str, str]]:
    return {(f["kind"], f["test"]) for f in done.report.extra["weakened_tests"]["findings"]}


def assert_failed_for_weakening(done, *expected: tuple[str, str]) -> None:
    """The task failed with the weakened_tests reason, named ``expected``, and the model was
    told once, with the list."""
    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert report.reason.startswith("weakened_tests: "), report.reason
    found = kinds(done)
    for item in expected:
        assert item in found, found
    prompts = user_prompts(done.provider)
    told = [p for p in prompts if "Your change weakens the tests" in p]
    assert len(told) == 1
    for _, test in expected:
        assert test in told[0]
    guard = next(g for g in report.extra["guards"] if g["name"] == "weakened_tests")
    assert guard["passed"] is False
    assert {test for _, test in expected} <= set(guard["paths"])


def test_a_deleted_failing_test_fails_the_task(repo_factory, tmp_path):
    deleted = fix("tests/test_calc.py", ADD_TEST, "")
    done = run(repo_factory, tmp_path, weakening(deleted, FIX_MUL))
    assert done.report.extra["verify"]["passed"] is True  # verify is green: the trick worked
    assert_failed_for_weakening(done, ("disappeared", ADD))
    assert "tests/test_calc.py" in done.patch  # the patch is kept for review


@pytest.mark.parametrize(
    ("marker", "kind"),
    [
        ("@pytest.mark.skip(reason='later')\n", "pytest.mark.skip"),
        ("@pytest.mark.skipif(True, reason='later')\n", "pytest.mark.skipif"),
        ("@pytest.mark.xfail(reason='known')\n", "pytest.mark.xfail"),
    ],
)
def test_a_skip_or_xfail_marker_on_a_failing_test_fails_the_task(
    repo_factory, tmp_path, marker, kind
):
    skip = fix("tests/test_calc.py", ADD_TEST, marker + ADD_TEST)
    imports = fix("tests/test_calc.py", "from calc", "import pytest\n\nfrom calc")
    done = run(repo_factory, tmp_path, weakening(skip, imports, FIX_MUL))
    assert_failed_for_weakening(
        done, ("skipped", ADD), ("marker_added", "tests/test_calc.py::test_add")
    )
    finding = next(
        f for f in done.report.extra["weakened_tests"]["findings"] if f["kind"] == "marker_added"
    )
    assert finding["detail"] == f"skip/xfail added: {kind}"


UNITTEST_CALC = {
    **CALC,
    "tests/test_calc.py": (
        "import unittest\n\nfrom calc import add, mul\n\n\n"
        "class TestCalc(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
        "    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n"
    ),
}


def test_unittest_skip_on_a_failing_test_fails_the_task(repo_factory, tmp_path):
    skip = fix(
        "tests/test_calc.py",
        "    def test_add(self):",
        "    @unittest.skip('later')\n    def test_add(self):",
    )
    done = run(repo_factory, tmp_path, weakening(skip, FIX_MUL), UNITTEST_CALC)
    assert_failed_for_weakening(
        done,
        ("skipped", "tests.test_calc.TestCalc::test_add"),
        ("marker_added", "tests/test_calc.py::TestCalc::test_add"),
    )


PARAM_CALC = {
    **CALC,
    "tests/test_calc.py": (
        "import pytest\n\nfrom calc import add\n\n\n"
        "@pytest.mark.parametrize(('a', 'b', 'total'), [(1, 0, 1), (2, 3, 5)])\n"
        "def test_add(a, b, total):\n    assert add(a, b) == total\n"
    ),
}


def test_a_parametrize_case_removed_fails_the_task(repo_factory, tmp_path):
    drop = fix("tests/test_calc.py", "[(1, 0, 1), (2, 3, 5)]", "[(1, 0, 1)]")
    done = run(repo_factory, tmp_path, weakening(drop), PARAM_CALC)
    assert_failed_for_weakening(
        done,
        ("disappeared", "tests.test_calc::test_add[2-3-5]"),
        ("cases_removed", "tests/test_calc.py::test_add"),
    )


def test_an_assertion_removed_fails_the_task(repo_factory, tmp_path):
    files = {**CALC, "tests/test_calc.py": TESTS.replace(
        "    assert add(2, 3) == 5\n", "    assert add(0, 0) == 0\n    assert add(2, 3) == 5\n"
    )}  # fmt: skip
    weaken = fix("tests/test_calc.py", "    assert add(2, 3) == 5\n", "")
    done = run(repo_factory, tmp_path, weakening(weaken, FIX_MUL), files)
    assert_failed_for_weakening(done, ("asserts_removed", "tests/test_calc.py::test_add"))
    finding = next(
        f for f in done.report.extra["weakened_tests"]["findings"]
        if f["kind"] == "asserts_removed"
    )  # fmt: skip
    assert finding["detail"] == "assertions 2 → 1"


@pytest.mark.parametrize("body", ["pass", "return"])
def test_a_test_body_replaced_by_pass_or_return_fails_the_task(repo_factory, tmp_path, body):
    empty = fix("tests/test_calc.py", "    assert add(2, 3) == 5\n", f"    {body}\n")
    done = run(repo_factory, tmp_path, weakening(empty, FIX_MUL))
    assert_failed_for_weakening(done, ("emptied", "tests/test_calc.py::test_add"))


DESELECT_HOOK = (
    "def pytest_collection_modifyitems(config, items):\n"
    "    items[:] = [i for i in items if i.name != 'test_add']\n"
)
IGNORE_HOOK = (
    "def pytest_ignore_collect(collection_path, config):\n"
    "    return collection_path.name == 'test_calc.py' or None\n"
)


@pytest.mark.parametrize(
    ("hook", "name", "gone"),
    [
        (DESELECT_HOOK, "pytest_collection_modifyitems", [ADD]),
        (IGNORE_HOOK, "pytest_ignore_collect", [ADD, MUL, SUB]),
    ],
)
def test_a_conftest_hook_that_drops_tests_fails_the_task(repo_factory, tmp_path, hook, name, gone):
    files = {**CALC, "tests/test_more.py": "def test_more():\n    assert True\n"}
    done = run(repo_factory, tmp_path, weakening(write("conftest.py", hook), FIX_MUL), files)
    expected = [("disappeared", t) for t in gone]
    assert_failed_for_weakening(done, *expected, ("collection_hook", "conftest.py"))
    hook_finding = next(
        f for f in done.report.extra["weakened_tests"]["findings"]
        if f["kind"] == "collection_hook"
    )  # fmt: skip
    assert hook_finding["detail"] == f"pytest hook {name} added"


DESELECT = "--deselect tests/test_calc.py::test_add"
CONFIGS = {
    "pytest.ini": ("[pytest]\naddopts = -q\n", f"[pytest]\naddopts = -q {DESELECT}\n"),
    "tox.ini": ("[pytest]\naddopts = -q\n", f"[pytest]\naddopts = -q {DESELECT}\n"),
    "setup.cfg": ("[tool:pytest]\naddopts = -q\n", f"[tool:pytest]\naddopts = -q {DESELECT}\n"),
    "pyproject.toml": (
        '[tool.pytest.ini_options]\naddopts = "-q"\n',
        f'[tool.pytest.ini_options]\naddopts = "-q {DESELECT}"\n',
    ),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_deselect_in_the_pytest_settings_fails_the_task(repo_factory, tmp_path, name):
    before, after = CONFIGS[name]
    done = run(repo_factory, tmp_path, weakening(write(name, after), FIX_MUL),
               {**CALC, name: before})  # fmt: skip
    assert_failed_for_weakening(done, ("disappeared", ADD), ("collection_config", name))
    finding = next(
        f for f in done.report.extra["weakened_tests"]["findings"]
        if f["kind"] == "collection_config"
    )  # fmt: skip
    assert finding["detail"] == f"addopts gained {DESELECT}"


@pytest.mark.parametrize(
    ("after", "detail"),
    [
        ("addopts = \"-q -k 'not add'\"\n", "addopts gained -k not add"),
        (
            'addopts = "-q"\ntestpaths = ["tests/none"]\n',
            "testpaths changed from '' to 'tests/none'",
        ),
        ('addopts = "-q"\nnorecursedirs = ["tests"]\n', "norecursedirs changed from '' to 'tests'"),
    ],
)
def test_a_narrowed_collection_fails_the_task(repo_factory, tmp_path, after, detail):
    files = {**CALC, "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-q"\n'}
    edit = write("pyproject.toml", "[tool.pytest.ini_options]\n" + after)
    done = run(repo_factory, tmp_path, weakening(edit, FIX_MUL), files)
    assert_failed_for_weakening(done, ("collection_config", "pyproject.toml"))
    details = [f["detail"] for f in done.report.extra["weakened_tests"]["findings"]]
    assert detail in details


def test_a_model_that_undoes_its_weakening_when_told_succeeds(repo_factory, tmp_path):
    deleted = fix("tests/test_calc.py", ADD_TEST, "")
    restored = fix("tests/test_calc.py", "\n\n\ndef test_mul", f"\n\n\n{ADD_TEST}\n\ndef test_mul")
    replies = [deleted, FIX_MUL, Reply(text="green"), restored, FIX_ADD, Reply(text="fixed")]
    done = run_task(repo_factory(CALC), {"prompt": PROMPT, "verify": VERIFY}, replies,
                    tmp_path / "out")  # fmt: skip
    assert done.report.status is Status.success, done.report.reason
    told = user_prompts(done.provider)[1]
    assert told.startswith("Your change weakens the tests (attempt 1 of 2)")
    assert f"- {ADD}: not run any more (baseline: failed)" in told
    assert done.report.extra["weakened_tests"]["findings"] == []
    # the default guard found nothing in the end: no guard testcase is added
    assert "guards" not in done.report.extra


def test_an_added_test_and_a_stronger_assertion_are_no_finding(repo_factory, tmp_path):
    stronger = fix("tests/test_calc.py", "    assert mul(3, 4) == 12\n",
                   "    assert mul(3, 4) == 12\n    assert mul(0, 4) == 0\n")  # fmt: skip
    added = write("tests/test_div.py", "from calc import sub\n\n\ndef test_sub_zero():\n"
                  "    assert sub(1, 1) == 0\n")  # fmt: skip
    replies = [stronger, added, FIX_MUL, FIX_ADD, Reply(text="fixed")]
    recipe = {"prompt": PROMPT, "verify": VERIFY, "guards": {"weakened_tests": "on"}}
    done = run_task(repo_factory(CALC), recipe, replies, tmp_path / "out")
    assert done.report.status is Status.success, done.report.reason
    assert done.report.extra["weakened_tests"]["findings"] == []
    assert done.report.extra["guards"] == [
        {"name": "weakened_tests", "passed": True, "message": "", "paths": [], "reverted": []}
    ]


def test_report_mode_lists_the_findings_without_failing(repo_factory, tmp_path):
    deleted = fix("tests/test_calc.py", ADD_TEST, "")
    case = weakening(deleted, FIX_MUL, recipe={"guards": {"weakened_tests": "report"}})
    done = run(repo_factory, tmp_path, case)
    assert done.report.status is Status.success, done.report.reason
    assert kinds(done) == {("disappeared", ADD)}
    assert not [p for p in user_prompts(done.provider) if "weakens the tests" in p]
    guard = done.report.extra["guards"][0]
    assert guard["name"] == "weakened_tests" and guard["passed"] is True
    assert guard["message"].startswith("report only (not failing the task): 1 finding(s):")


def test_off_is_silent(repo_factory, tmp_path):
    deleted = fix("tests/test_calc.py", ADD_TEST, "")
    case = weakening(deleted, FIX_MUL, recipe={"guards": {"weakened_tests": "off"}})
    done = run(repo_factory, tmp_path, case)
    assert done.report.status is Status.success, done.report.reason
    assert "weakened_tests" not in done.report.extra and "guards" not in done.report.extra


def test_without_per_test_results_the_guard_is_off_by_default(repo_factory, tmp_path):
    deleted = fix("tests/test_calc.py", ADD_TEST, "")
    recipe = {"verify": {"command": "python -m pytest -q", "attempts": 2}}
    done = run(repo_factory, tmp_path, weakening(deleted, FIX_MUL, recipe=recipe))
    assert done.report.status is Status.success, done.report.reason
    assert "weakened_tests" not in done.report.extra


HIDDEN_CONFTEST = (
    "import pytest\n\n\n"
    "@pytest.hookimpl(wrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    report = yield\n"
    "    report.outcome = 'passed'\n"
    "    return report\n"
)


def test_a_conftest_the_ignore_rules_hide_is_set_aside_and_caught(repo_factory, tmp_path):
    repo = repo_factory({**CALC, ".gitignore": "__pycache__/\n.pytest_cache/\nconftest.py\n"})
    case = weakening(write("conftest.py", HIDDEN_CONFTEST))
    done = run_task(repo, case["recipe"], case["replies"], tmp_path / "out")
    assert_failed_for_weakening(done, ("hidden_file", "conftest.py"))
    assert done.patch == ""  # the file is not in the patch: that is the trick
    assert done.report.extra["weakened_tests"]["set_aside"] == ["conftest.py"]
    # verify judged the tree without it: the failures are the real ones
    assert [e.passed for e in done.verify_events] == [False, False, False]
    assert done.report.extra["verify"]["still_failing"] == [ADD, MUL]
    set_aside = [e for e in done.events if getattr(e, "kind", "") == "files_set_aside"]
    assert "conftest.py" in set_aside[0].message  # type: ignore[attr-defined]
    # the agent's file is back where it wrote it; agentci's store is gone
    assert (repo / "conftest.py").read_text() == HIDDEN_CONFTEST
    assert not list(repo.glob(".agentci/set-aside-*"))
