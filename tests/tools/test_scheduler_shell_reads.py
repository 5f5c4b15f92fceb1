"""Read-only shell commands of one turn run at the same time, like the read tools."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from test_scheduler import run
from tool_harness import Harness, bwrap_sandbox

from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ToolCallPart
from agentci.recipe.policy_config import Policy
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler


def _feed(fifos: list[Path], give_up_after: float) -> None:
    """Write each FIFO's name into it, in order, once a reader has it open."""
    deadline = time.monotonic() + give_up_after
    for fifo in fifos:
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:  # ENXIO: nobody reads it yet
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
        os.write(fd, f"fed {fifo.name}\n".encode())
        os.close(fd)


def test_read_only_shell_commands_of_one_turn_run_at_the_same_time(ws: Path) -> None:
    # `cat first` waits for a writer, and the writer feeds `second` before `first`: both
    # commands get their line only if they are running at once (one after the other, the
    # first one would time out waiting).
    for name in ("first", "second"):
        os.mkfifo(ws / name)
    feeder = threading.Thread(target=_feed, args=([ws / "second", ws / "first"], 30))
    feeder.start()
    calls = [
        ToolCallPart("1", "run_shell_command", {"command": "cat first", "timeout_seconds": 20}),
        ToolCallPart("2", "run_shell_command", {"command": "cat second", "timeout_seconds": 20}),
    ]
    _, results = run(ws, calls)
    feeder.join()
    assert [r.error for r in results] == [None, None]
    assert "fed first" in results[0].output
    assert "fed second" in results[1].output


def test_eight_sandboxed_read_only_commands_of_one_turn_all_run_at_once(ws: Path) -> None:
    # Eight `sleep …; cat pN` calls, each in its own bubblewrap sandbox; the feeder serves
    # p7 first and p0 last, so every `cat` gets its line only if all eight run at the same
    # time: with fewer at once, the first ones would wait for a line that never comes and
    # time out.
    fifos = [ws / f"p{i}" for i in range(8)]
    for fifo in fifos:
        os.mkfifo(fifo)
    h = Harness(ws=ws, mode="auto_edit", sandbox=bwrap_sandbox(ws), timeout=20)
    feeder = threading.Thread(target=_feed, args=(fifos[::-1], 30))
    feeder.start()
    calls = [("run_shell_command", {"command": f"sleep 0.1; cat p{i}"}) for i in range(8)]
    results = h.run(calls)
    feeder.join()
    assert [r.error for r in results] == [None] * 8
    assert [r.output.splitlines()[-1] for r in results] == [f"fed p{i}" for i in range(8)]
    decisions = [e for e in h.events if e.type == "tool_call_decision"]
    assert [d.rule for d in decisions] == ["read_only_command"] * 8


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        ("cat a.txt", True),
        ("sleep 0.5", True),
        ("date +%s; seq 3", True),
        ("date -s 2030-01-01", False),
        ("ls -la | wc -l", True),
        ("grep -rn needle . 2>/dev/null", True),
        ("echo x > a.txt", False),
        ("git status", False),
        ("cat $(ls)", False),
        ("FOO=1 cat a.txt", False),
        ("rm a.txt", False),
        ("sed -i s/a/b/ a.txt", False),
        ("cat ../outside.txt", False),
        ("python -c 'print(1)'", False),
    ],
)
def test_which_shell_commands_count_as_reads(ws: Path, command: str, reads: bool) -> None:
    (ws / "a.txt").write_text("a\n")
    engine = PolicyEngine.from_recipe(Policy(mode="auto_edit"), workspace=ws, recipe_path=None)
    scheduler = Scheduler(default_tools(), engine, ToolContext(workspace=ws))
    call = ToolCallPart("1", "run_shell_command", {"command": command})
    assert scheduler.only_reads(call) is reads


def test_reads_run_at_once_keep_the_calls_order_when_later_ones_end_first(ws: Path) -> None:
    # each read starts as soon as its decision is out; the ones asked for last end first
    calls = [
        ToolCallPart("1", "run_shell_command", {"command": "sleep 0.6; echo first"}),
        ToolCallPart("2", "run_shell_command", {"command": "sleep 0.3; echo second"}),
        ToolCallPart("3", "run_shell_command", {"command": "echo third"}),
    ]
    events, results = run(ws, calls)
    responses = [e for e in events if e.type == "tool_call_response"]
    assert [r.id for r in results] == ["1", "2", "3"]
    assert [r.output.splitlines()[-1] for r in results] == ["first", "second", "third"]
    assert [e.call_id for e in responses] == ["1", "2", "3"]
    assert [e.type for e in events] == ["tool_call_decision"] * 3 + ["tool_call_response"] * 3
