"""Failures at a place of the workspace, read from what real tools print (ruff, mypy, JUnit)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.verify.locations import MAX_LOCATIONS, Location, find_locations
from agentci.verify.run import TestOutcome, VerifyRun

BIN = Path(sys.executable).parent
APP = "import os\n\n\ndef f(x: int) -> str:\n    return x\n"


def _tool(name: str) -> str:
    exe = shutil.which(name) or str(BIN / name)
    if not Path(exe).exists():
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return exe


def _run(ws: Path, *cmd: str) -> VerifyRun:
    done = subprocess.run(cmd, cwd=ws, capture_output=True, text=True)
    output = done.stdout + done.stderr
    return VerifyRun(" ".join(Path(cmd[0]).name if i == 0 else c for i, c in enumerate(cmd)),
                     done.returncode, done.returncode == 0, output, 1)  # fmt: skip


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "app.py").write_text(APP)
    return tmp_path


def test_ruff_json_gives_rule_line_and_columns(ws):
    run = _run(ws, _tool("ruff"), "check", "--no-cache", "--output-format=json", "pkg")
    assert find_locations(run, ws) == [
        Location("pkg/app.py", 1, "`os` imported but unused", 8, 1, 10, "F401", "ruff")
    ]


def test_ruff_concise_text_gives_the_same_place(ws):
    run = _run(ws, _tool("ruff"), "check", "--no-cache", "--output-format=concise", "pkg")
    [loc] = find_locations(run, ws)
    assert (loc.file, loc.line, loc.column, loc.rule, loc.tool) == (
        "pkg/app.py",
        1,
        8,
        "F401",
        "ruff",
    )
    assert loc.message == "`os` imported but unused"


def test_mypy_json_gives_code_and_one_based_column(ws):
    run = _run(ws, _tool("mypy"), "--no-incremental", "-O", "json", "pkg/app.py")
    [loc] = find_locations(run, ws)
    assert (loc.file, loc.line, loc.column, loc.rule, loc.tool) == (
        "pkg/app.py", 5, 12, "return-value", "mypy"
    )  # fmt: skip
    assert "Incompatible return value type" in loc.message


def test_mypy_text_takes_its_trailing_code_as_the_rule(ws):
    run = _run(ws, _tool("mypy"), "--no-incremental", "--no-error-summary", "pkg/app.py")
    [loc] = find_locations(run, ws)
    assert (loc.file, loc.line, loc.rule, loc.level) == ("pkg/app.py", 5, "return-value", "error")
    assert loc.message.startswith("Incompatible return value type")


def test_a_failed_test_is_placed_at_the_last_workspace_line_of_its_traceback(ws):
    detail = (
        "def test_add():\n>       assert add(2, 3) == 5\nE       assert -1 == 5\n\n"
        "/usr/lib/python3/site.py:3: in helper\n"
        "pkg/app.py:5: AssertionError"
    )
    tests = {
        "tests.test_calc::test_add": TestOutcome(
            "tests.test_calc::test_add", "failed", "assert -1 == 5", detail
        ),
        "tests.test_calc::test_ok": TestOutcome("tests.test_calc::test_ok", "passed"),
    }
    run = VerifyRun("python -m pytest -q", 1, False, "", 1, tests=tests, junit_found=True)
    assert find_locations(run, ws) == [
        Location("pkg/app.py", 5, "tests.test_calc::test_add failed: assert -1 == 5",
                 rule="failed", tool="pytest")
    ]  # fmt: skip


def test_places_outside_the_workspace_or_missing_files_are_not_locations(ws, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "x.py"
    outside.write_text("x\n")
    output = f"{outside}:1:1: E1 outside\nnope.py:3:1: E2 missing\n../x.py:1: E3 up\n"
    run = VerifyRun("lint", 1, False, output, 1)
    assert find_locations(run, ws) == []


def test_each_place_once_and_at_most_the_cap(ws):
    lines = "".join(f"pkg/app.py:{n % 3000 + 1}:1: E{n % 3000:04d} bad\n" for n in range(6000))
    run = VerifyRun("lint", 1, False, "pkg/app.py:1:1: E0000 bad\n" + lines, 1)
    found = find_locations(run, ws)
    assert len(found) == MAX_LOCATIONS
    assert len({(f.line, f.message) for f in found}) == MAX_LOCATIONS


def test_in_the_events_paths_are_relative_to_the_repository_top(tmp_path):
    from agentci.verify.locations import run_locations

    sub = tmp_path / "repo" / "services" / "api"
    (sub / "pkg").mkdir(parents=True)
    (sub / "pkg" / "app.py").write_text(APP)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "repo", check=True)
    run = VerifyRun("ruff check", 1, False, "pkg/app.py:1:8: F401 `os` imported but unused\n", 1)
    [loc] = run_locations(run, sub)
    assert (loc.file, loc.line, loc.rule) == ("services/api/pkg/app.py", 1, "F401")


def test_a_tool_printing_json_nested_too_deep_gives_no_location(ws):
    deep = "'[' * 100_000 + ']' * 100_000"
    run = _run(ws, sys.executable, "-c", f"print({deep}); print('{{\"a\": ' + {deep} + '}}')")
    assert run.output.startswith("[[[") and run.output.count("[") == 200_000
    assert find_locations(run, ws) == []
