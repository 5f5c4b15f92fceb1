"""End-to-end cases (:mod:`agentci.testing.case`) with ``sandbox: none``, and what the
end-to-end tests check about a finished run: one story told by every output, JSONL lines,
readiness waits and the processes a run left."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from agentci.testing.case import Case, shell_call, write_call, write_case
from agentci.testing.cli import Run
from agentci.testing.repo import GIT_AUTHOR

__all__ = ["Case", "make_case", "shell_call", "write_call"]

GIT_ENV = GIT_AUTHOR


def make_case(
    root: Path,
    script: list[Any] | None,
    recipe: dict[str, Any],
    files: dict[str, str] | None = None,
) -> Case:
    """Write the workspace, the script (model ``scripted:script.yaml`` unless the recipe names
    another model) and the recipe (``sandbox: none`` and a prompt unless given)."""
    return write_case(root, script, {"sandbox": "none", **recipe}, files)


def assert_agree(run: Run, status: str, code: int) -> None:
    """Process exit code, result.json, the last event and summary.md tell the same story."""
    assert run.code == code, (run.code, run.stderr[-2000:])
    events = run.events
    assert events[-1].type == "run_finished", events[-1]
    assert (events[-1].status, events[-1].exit_code) == (status, code)
    assert (run.result["status"], run.result["exit_code"]) == (status, code)
    assert status in (run.out / "summary.md").read_text()
    assert (run.out / "junit.xml").is_file()
    assert (run.out / "patch.diff").is_file() or list(run.out.glob("tasks/*/patch.diff"))


def jsonl_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSONL file, parsed (fails on any broken line)."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_for(predicate: Any, timeout: float = 20.0, what: str = "condition") -> None:
    """Poll ``predicate`` until it is true (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def kill_all(pids: list[int]) -> None:
    """Clean up processes a test knows about (after SIGKILL tests)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
