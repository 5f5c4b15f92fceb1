"""A real ``agentci`` process stays in control while the model searches.

Before, ``grep_search`` and ``glob`` matched with Python's backtracking ``re`` in a thread
that held the interpreter: a catastrophic pattern froze the process (no timeout, no signal
handling, no outputs), and a FIFO made by the agent blocked a thread forever after the run
had printed its result.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import yaml
from e2e_scenario import jsonl_lines, make_case, shell_call, wait_for

from agentci.testing.cli import run_recipe
from agentci.testing.processes import pids_with

YOLO = {"policy": {"mode": "yolo"}}


def calls(*items: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """One scripted model turn making these tool calls."""
    return {"calls": [{"name": n, "args": a} for n, a in items]}


def responses(events: list[Any]) -> list[Any]:
    return [e for e in events if e.type == "tool_call_response"]


def test_catastrophic_patterns_end_and_the_run_finishes(tmp_path: Path):
    script = [
        calls(
            ("grep_search", {"pattern": "(a*)*b"}),
            ("grep_search", {"pattern": "(a+)+$"}),
            ("glob", {"pattern": "*a*a*a*a*a*a*a*a*a*b"}),
        ),
        {"text": "done"},
    ]
    files = {"long.txt": "a" * 40_000 + "c\n", "a" * 250: "x\n"}
    case = make_case(tmp_path, script, {"budget": {"tool_timeout_seconds": 5}}, files)
    run = case.run("-q")
    assert run.code == 1, run.stderr  # no_changes: the model changed nothing
    started = [e for e in run.events if e.type == "task_started"][0]
    assert started.search_engine.startswith("ripgrep 14.")
    assert [r.output for r in responses(run.events)] == [
        "No matches for '(a*)*b'.",
        "No matches for '(a+)+$'.",
        "No files match '*a*a*a*a*a*a*a*a*a*b'.",
    ]


def test_a_fifo_made_by_the_agent_does_not_hang_the_run(tmp_path: Path):
    script = [
        shell_call("mkfifo pipe && echo needle > notes.txt"),
        calls(("grep_search", {"pattern": "needle"})),
        {"text": "done"},
    ]
    case = make_case(tmp_path, script, YOLO)
    shutil.rmtree(case.repo / ".git")  # a workspace that is not a git repository
    run = case.run("-q")
    assert run.code == 0, run.stderr
    assert responses(run.events)[-1].output == "notes.txt:1: needle"
    assert run.result["status"] == "success"


def test_sigterm_during_a_long_grep_stops_cleanly(tmp_path: Path):
    marker = f"needle{os.getpid()}x{os.urandom(4).hex()}"
    script = [calls(("grep_search", {"pattern": marker})), {"text": "done"}]
    case = make_case(tmp_path, script, {})
    # A tool cache folder (the snapshot leaves caches out even where .gitignore does not list
    # them, so it never reads this file) holding 1 TiB of holes: the search reads for minutes.
    cache = case.repo / ".pytest_cache"
    cache.mkdir()
    with open(cache / "disk.img", "wb") as fh:
        fh.truncate(1 << 40)
    proc = case.popen("-q")
    try:
        wait_for(lambda: pids_with(marker), what="the search to start")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 143
    finally:
        proc.kill()
    assert pids_with(marker) == []
    last = jsonl_lines(case.out / "events.jsonl")[-1]
    assert (last["type"], last["status"]) == ("run_finished", "cancelled")
    assert yaml.safe_load((case.out / "result.json").read_text())["status"] == "cancelled"


def test_the_output_folder_is_not_shown_to_the_model(tmp_path: Path):
    script = [
        calls(
            ("list_directory", {"dir_path": "."}),
            ("glob", {"pattern": "**/*.jsonl"}),
            ("grep_search", {"pattern": "run_started"}),
        ),
        {"text": "done"},
    ]
    case = make_case(tmp_path, script, {})
    (case.repo / "data.jsonl").write_text("{}\n")
    run = run_recipe(case.recipe, case.repo / ".agentci" / "out", "-q", cwd=case.repo)
    assert run.code == 1, run.stderr
    listing, found, grep = (r.output for r in responses(run.events))
    assert listing.splitlines() == ["README.md", "data.jsonl"]
    assert found == "data.jsonl"
    assert grep == "No matches for 'run_started'."
