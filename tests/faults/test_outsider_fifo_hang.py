"""Outsider faults: workspace content can make agentci hang for ever.

A named pipe called ``.gitignore`` (in any folder, a folder named ``.gitattributes`` included) or
``.gitattributes`` (at the top) makes every
``git add`` in that work tree block on ``open()`` until someone writes to the pipe. The agent can
make one (a shell command under ``yolo``). agentci's snapshot (``git add -A`` in its private git dir) then
blocks for good: ``budget.max_wall_seconds`` does not stop it, the run never ends, no
``run_finished``, no result.json. The snapshot now refuses such a workspace before git runs:
the task ends ``blocked`` at once, naming the pipe, with every output written (and each git
call of a snapshot has a deadline, tests/change/test_snapshot_blocking.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_call, write_case

pytestmark = pytest.mark.timeout(120)

CASES = {
    "agent_shell_mkfifo": (
        [
            shell_call("mkdir sub && mkfifo sub/.gitignore"),
            write_call("a.py", "x = 1\n"),
            {"text": "done"},
        ],
        {"policy": {"mode": "yolo"}},
        {"README.md": "# p\n"},
    ),
    "agent_shell_mkfifo_gitattributes": (
        [shell_call("mkfifo .gitattributes"), write_call("a.py", "x = 1\n"), {"text": "done"}],
        {"policy": {"mode": "yolo"}},
        {"README.md": "# p\n"},
    ),
    "agent_shell_mkfifo_in_a_gitattributes_folder": (
        [
            shell_call("mkdir .gitattributes && mkfifo .gitattributes/.gitignore"),
            write_call("a.py", "x = 1\n"),
            {"text": "done"},
        ],
        {"policy": {"mode": "yolo"}},
        {"README.md": "# p\n"},
    ),
}


PIPES = {
    "agent_shell_mkfifo": "sub/.gitignore",
    "agent_shell_mkfifo_gitattributes": ".gitattributes",
    "agent_shell_mkfifo_in_a_gitattributes_folder": ".gitattributes/.gitignore",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_named_pipe_gitignore_does_not_hang_the_run(tmp_path: Path, name: str) -> None:
    script, recipe, files = CASES[name]
    case = write_case(tmp_path, script, {**recipe, "budget": {"max_wall_seconds": 15}}, files)
    proc = case.popen()
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("agentci hung past budget.max_wall_seconds (15 s) on a named-pipe .gitignore")
    result = json.loads((case.out / "result.json").read_text())
    last = json.loads((case.out / "events.jsonl").read_text().splitlines()[-1])
    assert last["type"] == "run_finished"
    assert (result["exit_code"], last["exit_code"]) == (proc.returncode, proc.returncode), err[
        -800:
    ]
    assert (result["status"], result["exit_code"]) == ("blocked", 5)
    assert f"not regular files (a named pipe or device): {PIPES[name]};" in result["reason"]
