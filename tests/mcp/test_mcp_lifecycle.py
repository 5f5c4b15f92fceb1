"""MCP servers' lifetime: a server that cannot start stops the run before any model call; no
server outlives agentci, whether it ends by SIGTERM or is killed with SIGKILL."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest
from e2e_scenario import kill_all, wait_for
from mcp_case import SANDBOX, call, demo_server, mcp_case, unique

from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.processes import pids_with

FAILING = [sys.executable, "-c", "import sys; print('demo: config missing', file=sys.stderr); sys.exit(3)"]  # fmt: skip


def test_a_server_that_cannot_start_is_invalid_input_before_any_model_call(tmp_path: Path):
    with FakeGemini([{"text": "never asked"}]) as fake:
        case = mcp_case(
            tmp_path, None, server={"command": FAILING}, model={"name": "gemini-2.5-flash"}
        )
        run = case.run("-q", env=fake.env())
        asked = len(fake.generate_requests)
    assert run.code == 2, run.stderr
    assert asked == 0
    assert run.result["status"] == "invalid_input"
    assert "MCP server 'demo' could not be started" in run.stderr
    assert "demo: config missing" in run.stderr


def test_a_task_whose_verify_already_passes_starts_no_server(tmp_path: Path):
    verify = {"command": "true", "skip_if_passing": True}
    case = mcp_case(tmp_path, [{"text": "never asked"}], server={"command": FAILING}, verify=verify)
    run = case.run("-q")
    assert (run.code, run.result["status"]) == (0, "success"), run.stderr
    assert "demo: config missing" not in run.stderr
    assert [e.type for e in run.events if e.type in ("error", "warning")] == []


def test_a_server_program_that_does_not_exist_is_invalid_input(tmp_path: Path):
    server = {"command": ["no-such-mcp-server-program"]}
    run = mcp_case(tmp_path, [{"text": "never asked"}], server=server).run("-q")
    assert run.code == 2, run.stderr
    assert "MCP server 'demo' could not be started" in run.stderr
    assert "no-such-mcp-server-program" in run.stderr


def test_an_include_glob_no_tool_matches_is_invalid_input(tmp_path: Path):
    server = demo_server(include=["greet", "no_such_tool*"])
    run = mcp_case(tmp_path, [{"text": "never asked"}], server=server).run("-q")
    assert run.code == 2, run.stderr
    assert "include: no tool of the server matches 'no_such_tool*'" in run.stderr


def _running_case(tmp_path: Path, marker: str, sandbox: str):
    """A run that has its server up and the model waiting on a long shell command."""
    script = [call("run_shell_command", {"command": f"sleep 60.{marker[-6:]}"}), {"text": "x"}]
    rules = [{"tool": "run_shell_command", "command": "sleep", "decision": "allow"}]
    case = mcp_case(tmp_path, script, rules=rules, server=demo_server(marker), sandbox=sandbox)
    proc = case.popen("-q")
    wait_for(lambda: pids_with(f"sleep 60.{marker[-6:]}"), timeout=60, what="the command")
    assert pids_with(marker), "the server runs while the task does"
    return proc


SANDBOXES = sorted({"none", SANDBOX})


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_no_server_is_left_after_sigterm(tmp_path: Path, sandbox: str):
    marker = unique()
    proc = _running_case(tmp_path, marker, sandbox)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 143
    try:
        wait_for(lambda: not pids_with(marker), timeout=15, what="the server to end")
    finally:
        kill_all(pids_with(marker))


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_no_server_is_left_after_sigkill_of_agentci(tmp_path: Path, sandbox: str):
    marker = unique()
    proc = _running_case(tmp_path, marker, sandbox)
    proc.kill()  # agentci alone: the server is in a session of its own
    proc.wait(timeout=30)
    try:
        wait_for(lambda: not pids_with(marker), timeout=15, what="the server to end")
    finally:
        kill_all(pids_with(marker) + pids_with(f"sleep 60.{marker[-6:]}"))


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_sigterm_while_a_server_is_starting_ends_the_run_and_the_server(
    tmp_path: Path, sandbox: str
):
    marker = f"sleep 300.{unique()[-6:]}"  # a server that never answers
    server = {"command": ["bash", "-c", marker], "timeout_seconds": 600}
    case = mcp_case(tmp_path, [{"text": "never asked"}], server=server, sandbox=sandbox)
    proc = case.popen("-q")
    wait_for(lambda: pids_with(marker), timeout=60, what="the server to start")
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=60) == 143
        wait_for(lambda: not pids_with(marker), timeout=15, what="the server to end")
    finally:
        kill_all(pids_with(marker))
    assert json.loads((case.out / "result.json").read_text())["status"] == "cancelled"
