"""Attacks through glob and grep_search: they never run git, so a repository the agent
creates cannot make agentci run its programs on the host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_harness import Harness

CANARY = "canary-GEMINI-5f1c2a9e"


@pytest.mark.parametrize(
    "search",
    [
        ("glob", {"pattern": "*"}),
        ("grep_search", {"pattern": "x"}),
        ("grep_search", {"pattern": "x", "include_pattern": "*.txt"}),
    ],
    ids=["glob", "grep_search", "grep_search-include"],
)
def test_fsmonitor_set_by_the_agent_never_runs_on_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, search: tuple[str, dict[str, str]]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", CANARY)
    loot = tmp_path / "host"  # outside the workspace, outside the sandbox's reach
    loot.mkdir()
    ws = tmp_path / "ws"  # not a git repository
    ws.mkdir()
    (ws / "notes.txt").write_text("x\n")
    # Unsandboxed (`sandbox: none`): inside the sandbox `.git` cannot even be created, so this
    # is the case where only the search tools themselves stand between the config and the host.
    h = Harness(ws=ws.resolve(), mode="yolo")
    payload = f"cat /proc/$PPID/environ /proc/{os.getpid()}/environ > {loot}/environ\n"
    assert h.call("write_file", file_path="payload.sh", content=payload).error is None
    # The headline attack hid these behind `env -S` to pass the read-only classifier (the
    # policy tests cover that); here the policy lets them run, as yolo or an allow rule would.
    assert "Exit code: 0" in h.sh("git init -q").output
    assert "Exit code: 0" in h.sh("git config core.fsmonitor 'sh payload.sh'").output
    name, args = search
    res = h.call(name, **args)
    assert res.error is None, res.error
    assert list(loot.iterdir()) == []
