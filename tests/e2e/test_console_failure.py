"""A console that cannot be written never changes the outcome (issue 10).

``agentci run --format jsonl | head -1`` (a pipe whose reader has gone), a closed stdout under
``GITHUB_ACTIONS`` and a closed stderr: the failing sink is dropped with one note (an ``error``
event, kind ``console_unavailable``); events.jsonl, result.json and the exit code are those of
the same run with a working console.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_scenario import Case, jsonl_lines, make_case, write_call

SCRIPT = [write_call("new.txt", "x\n"), {"text": "done"}]


def _run(case: Case, *args: str, redirect: str = "", env: dict[str, str] | None = None) -> int:
    """``agentci run`` through the shell, so ``>&-`` / ``2>&-`` really close a stream."""
    cmd = [sys.executable, "-m", "agentci", "run", str(case.recipe), "--out", str(case.out), *args]
    line = " ".join(f"'{c}'" for c in cmd) + f" {redirect}"
    full = {**os.environ, **(env or {})}
    return subprocess.run(["bash", "-c", line], cwd=case.repo, env=full, timeout=120).returncode


def _outcome(case: Case) -> tuple:
    events = jsonl_lines(case.out / "events.jsonl")
    kept = [e["type"] for e in events if e.get("kind") != "console_unavailable"]
    notes = [e for e in events if e.get("kind") == "console_unavailable"]
    result = (case.out / "result.json").read_text()
    last = events[-1]
    return kept, len(notes), (last["status"], last["exit_code"]), '"status": "success"' in result


@pytest.fixture
def reference(tmp_path: Path) -> tuple:
    case = make_case(tmp_path / "ref", SCRIPT, {})
    assert _run(case, "--format", "jsonl", redirect=">/dev/null 2>/dev/null") == 0
    kept, notes, last, success = _outcome(case)
    assert notes == 0 and last == ("success", 0) and success
    return kept


def test_a_closed_pipe_on_stdout_is_dropped_with_one_note(tmp_path: Path, reference: list):
    case = make_case(tmp_path / "run", SCRIPT, {})
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line, as after `| head -1`
    cmd = [sys.executable, "-m", "agentci", "run", str(case.recipe), "--out", str(case.out)]
    proc = subprocess.run(
        [*cmd, "--format", "jsonl"], cwd=case.repo, stdout=write, stderr=subprocess.PIPE,
        text=True, timeout=120,
    )  # fmt: skip
    os.close(write)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert _outcome(case) == (reference, 1, ("success", 0), True)


@pytest.mark.parametrize(
    ("redirect", "env", "notes"),
    [(">&-", {"GITHUB_ACTIONS": "true"}, 0), ("2>&-", {}, 1), (">&- 2>&-", {"GITHUB_ACTIONS": "true"}, 1)],
    ids=["stdout-closed-in-github-actions", "stderr-closed", "both-closed"],
)  # fmt: skip
def test_a_closed_console_stream_changes_nothing(
    tmp_path: Path, reference: list, redirect: str, env: dict, notes: int
):
    case = make_case(tmp_path / "run", SCRIPT, {})
    assert _run(case, redirect=redirect, env=env) == 0
    assert _outcome(case) == (reference, notes, ("success", 0), True)  # a success annotates nothing


def test_a_failing_annotation_at_the_end_keeps_run_finished_last(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "nothing to change"}], {})
    cmd = [sys.executable, "-m", "agentci", "run", str(case.recipe), "--out", str(case.out)]
    line = " ".join(f"'{c}'" for c in cmd) + " >&-"
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    done = subprocess.run(
        ["bash", "-c", line], cwd=case.repo, env=env, stderr=subprocess.PIPE, text=True
    )
    assert done.returncode == 1, done.stderr
    last = jsonl_lines(case.out / "events.jsonl")[-1]
    assert (last["type"], last["status"], last["exit_code"]) == ("run_finished", "no_changes", 1)
    assert "agentci: GitHubAnnotationsSink on a closed stream dropped" in done.stderr
    assert "Traceback" not in done.stderr
