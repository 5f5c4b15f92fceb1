"""Cases with the demo MCP server (``demo_server.py``, next to this file) for the MCP tests."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.case import Case, write_case

SERVER = Path(__file__).with_name("demo_server.py")
#: The sandbox the cases run in: bubblewrap where it works (root in CI), else none.
SANDBOX = "bwrap" if bwrap_problem() is None else "none"
ALLOW_DEMO = {"tool": "demo__*", "decision": "allow"}


def unique() -> str:
    """Digits that make a server's command line unique to one test."""
    return f"marker{os.getpid()}x{time.monotonic_ns()}"


def demo_server(*args: str, **extra: Any) -> dict[str, Any]:
    """The recipe entry that starts the demo server over stdio (``args`` are passed on)."""
    return {"command": [sys.executable, str(SERVER), *args], **extra}


def mcp_case(
    root: Path,
    script: list[Any] | None,
    *,
    rules: list[dict[str, Any]] | None = None,
    server: dict[str, Any] | None = None,
    **recipe: Any,
) -> Case:
    """A case whose recipe has the demo server as ``demo`` (and ``rules``), in :data:`SANDBOX`."""
    full: dict[str, Any] = {
        "sandbox": SANDBOX,
        "allow_no_changes": True,
        "policy": {"rules": rules if rules is not None else [ALLOW_DEMO]},
        "tools": {"mcp_servers": {"demo": server or demo_server()}},
    }
    full.update(recipe)
    return write_case(root, script, full)


def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scripted reply that makes one tool call."""
    return {"calls": [{"name": name, "args": args or {}}]}


def responses(run: Any) -> dict[str, Any]:
    """The tool_call_response events of a run, by call name (the last one of each name)."""
    return {e.name: e for e in run.events if e.type == "tool_call_response"}
