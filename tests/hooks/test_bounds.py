"""One model turn cannot start an unbounded number of processes or tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_helpers import of_type, run_batch, scheduler, script

from agentci.providers.base import ToolCallPart
from agentci.tools.concurrency import MAX_CONCURRENT_CALLS
from agentci.tools.scheduler import MAX_CALLS_PER_TURN

#: A hook that records how many hooks run at the same moment (under a file lock).
COUNTING = """\
import fcntl, os, sys
folder = sys.argv[1]

def step(delta):
    with open(os.path.join(folder, "lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        path = os.path.join(folder, "running")
        n = int(open(path).read() or 0) if os.path.exists(path) else 0
        open(path, "w").write(str(n + delta))
        if delta > 0:
            open(os.path.join(folder, "seen"), "a").write(f"{n + delta}\\n")

step(1)
sys.stdin.read()
step(-1)
"""


@pytest.fixture
def ws(repo_factory) -> Path:
    return repo_factory({"README.md": "hello\n"})


@pytest.fixture
def recipe_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "recipe"
    folder.mkdir()
    return folder


def reads(n: int) -> list[ToolCallPart]:
    return [ToolCallPart(f"c{i}", "read_file", {"file_path": "README.md"}) for i in range(n)]


def test_hook_processes_at_once_are_bounded(ws: Path, recipe_dir: Path, tmp_path: Path) -> None:
    script(recipe_dir, "count.py", COUNTING)
    counts = tmp_path / "counts"
    counts.mkdir()
    hooks = {"before_tool": [{"matcher": "*", "command": f"./count.py {counts}"}]}
    events, results = run_batch(scheduler(ws, recipe_dir, hooks), reads(3 * MAX_CONCURRENT_CALLS))
    seen = [int(n) for n in (counts / "seen").read_text().split()]
    assert len(seen) == len(of_type(events, "hook_result")) == 3 * MAX_CONCURRENT_CALLS
    assert max(seen) <= MAX_CONCURRENT_CALLS
    assert all(r.error is None and "hello" in r.output for r in results)


def test_calls_beyond_the_turn_limit_get_a_tool_error(ws: Path, recipe_dir: Path) -> None:
    calls = reads(MAX_CALLS_PER_TURN + 3)
    events, results = run_batch(scheduler(ws, recipe_dir, {}), calls)
    assert [r.id for r in results] == [c.id for c in calls]
    assert all(r.error is None for r in results[:MAX_CALLS_PER_TURN])
    for r in results[MAX_CALLS_PER_TURN:]:
        assert r.error == (
            f"not run: this turn asked for {MAX_CALLS_PER_TURN + 3} tool calls and at most "
            f"{MAX_CALLS_PER_TURN} run per turn; ask for this one again in the next turn"
        )
    responses = of_type(events, "tool_call_response")
    assert len(responses) == len(calls) and [e.ok for e in responses[-3:]] == [False] * 3
    assert len(of_type(events, "tool_call_decision")) == MAX_CALLS_PER_TURN
