"""The change the guards, the status and the patch see is the agent's alone: never what a verify
command wrote, never hidden by an edited .gitignore (in-process task runs, real pytest)."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import CALC, fix, run_task, user_prompts

from agentci.events import types as ev
from agentci.outcome import Status
from agentci.providers.scripted import Reply, call

# verify writes a coverage-like report into the workspace on every run
VERIFY = {"command": "echo run >> coverage.txt; python -m pytest -q", "runner": "pytest"}
PROMPT = "Fix the tests.\n{{ verify.failures }}"
FIX_ADD = fix(
    "calc/__init__.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"
)
FIX_MUL = fix("calc/__init__.py", "    return a + b\n", "    return a * b\n")
PASSING = {
    "calc/__init__.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    ".gitignore": "__pycache__/\n",
}


def write(path: str, content: str) -> Reply:
    return Reply(calls=[call("write_file", file_path=path, content=content)])


def test_what_verify_writes_is_not_in_the_change(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory(CALC)
    done = run_task(repo, {"prompt": PROMPT, "verify": VERIFY},
                    [FIX_MUL, FIX_ADD, Reply(text="fixed")], tmp_path / "out")  # fmt: skip
    assert done.report.status is Status.success, done.report.reason
    assert done.report.changed_files == ["calc/__init__.py"]
    assert "coverage.txt" not in done.patch
    # the baseline's run wrote it before the agent; what attempt 1's runs (its failing tests,
    # then its full suite) appended was put back after each run: the file is not the patch's
    assert (repo / "coverage.txt").read_text() == "run\n"


def test_what_verify_writes_between_attempts_is_subtracted(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory(CALC)
    replies = [FIX_MUL, Reply(text="mul fixed"), FIX_ADD, Reply(text="add fixed too")]
    done = run_task(repo, {"prompt": PROMPT, "verify": {**VERIFY, "attempts": 2}}, replies,
                    tmp_path / "out")  # fmt: skip
    assert done.report.status is Status.success, done.report.reason
    assert [(e.phase, e.attempt) for e in done.verify_events] == [
        ("baseline", 0), ("attempt", 1), ("attempt", 2),
    ]  # fmt: skip
    assert done.report.changed_files == ["calc/__init__.py"]
    assert "coverage.txt" not in done.patch


def test_a_file_verify_wrote_that_the_agent_then_edits_is_the_agents(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory(CALC)
    replies = [
        FIX_MUL,
        Reply(text="mul"),
        FIX_ADD,
        write("coverage.txt", "mine\n"),
        Reply(text="ok"),
    ]
    done = run_task(repo, {"prompt": PROMPT, "verify": {**VERIFY, "attempts": 2}}, replies,
                    tmp_path / "out")  # fmt: skip
    assert done.report.changed_files == ["calc/__init__.py", "coverage.txt"]
    assert "+mine" in done.patch


def test_without_baseline_verify_a_model_that_changed_nothing_is_no_changes(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory(PASSING)
    verify = {**VERIFY, "baseline": False}
    done = run_task(repo, {"prompt": PROMPT, "verify": verify}, [Reply(text="nothing to do")],
                    tmp_path / "out")  # fmt: skip
    assert done.report.status is Status.no_changes and done.report.exit_code == 1
    assert done.report.changed_files == [] and done.patch == ""


def test_a_test_file_hidden_by_an_ignore_rule_is_still_refused_by_the_guard(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory(CALC)
    replies = [
        write("tests/conftest.py", "collect_ignore = ['test_calc.py']\n"),
        write(".gitignore", "__pycache__/\n.pytest_cache/\ntests/conftest.py\n"),
        Reply(text="done"),
    ]
    recipe = {"prompt": "Fix.", "guards": {"forbid_test_edits": ["tests/**"]}}
    done = run_task(repo, recipe, replies + [Reply(text="again")], tmp_path / "out")
    feedback = user_prompts(done.provider)[-1]
    assert "forbid_test_edits" in feedback and "tests/conftest.py" in feedback
    assert not (repo / "tests" / "conftest.py").exists()  # reverted
    assert done.report.changed_files == [".gitignore"]


def test_ignored_files_the_agent_writes_are_reported(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({**PASSING, ".gitignore": "__pycache__/\nbuild/\n"})
    replies = [write("build/out.txt", "generated\n"), write("calc/x.py", "X = 1\n"),
               Reply(text="done")]  # fmt: skip
    done = run_task(repo, {"prompt": "Build."}, replies, tmp_path / "out")
    assert done.report.changed_files == ["calc/x.py"]
    assert done.report.extra["patch"]["ignored_written"] == ["build/out.txt"]
    warnings = [e for e in done.events if getattr(e, "kind", "") == "ignored_files_written"]
    assert {e.type for e in warnings} == {"warning"}
    assert len(warnings) == 1
    assert "build/out.txt" in warnings[0].message


def test_caches_the_tests_write_are_counted_not_warned_about(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({**PASSING, ".gitignore": "__pycache__/\nbuild/\n"})
    cache = "calc/__pycache__/x.cpython-312.pyc"
    replies = [write(cache, "bytecode\n"), write("calc/x.py", "X = 1\n"), Reply(text="done")]
    done = run_task(repo, {"prompt": "Build."}, replies, tmp_path / "out")
    assert done.report.extra["patch"]["ignored_written"] == [cache]  # still on record
    assert [e for e in done.events if isinstance(e, ev.Error | ev.WarningEvent)] == []


def test_a_cache_beside_another_ignored_file_is_only_counted(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({**PASSING, ".gitignore": "__pycache__/\nbuild/\n"})
    replies = [write("calc/__pycache__/x.pyc", "b\n"), write("build/out.txt", "g\n"),
               Reply(text="done")]  # fmt: skip
    done = run_task(repo, {"prompt": "Build."}, replies, tmp_path / "out")
    [warning] = [e for e in done.events if isinstance(e, ev.WarningEvent)]
    assert warning.message == (
        "the agent wrote 1 file(s) that .gitignore ignores (not in the patch): build/out.txt "
        "(and 1 cache file(s), e.g. __pycache__)"
    )
