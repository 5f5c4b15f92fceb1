"""An MCP server the model can make run anything (``demo__run``, allowed by a rule) is still
inside the boundary: started in the sandbox with the tools' environment, it finds no secret of
agentci's (not in its environment, not in any ``/proc/*/environ`` it can see) and cannot write
to the host outside the workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from attack_case import make_attack, tool

from agentci.policy.sandbox import bwrap_problem

SERVER = Path(__file__).parents[1] / "mcp" / "demo_server.py"


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")
def test_a_server_that_runs_the_models_commands_reaches_no_secret_and_no_host_path(
    tmp_path: Path,
) -> None:
    case = make_attack(
        tmp_path,
        [],
        {
            "sandbox": "bwrap",
            "allow_no_changes": True,
            "policy": {"rules": [{"tool": "demo__*", "decision": "allow"}]},
            "tools": {"mcp_servers": {"demo": {"command": [sys.executable, str(SERVER)]}}},
        },
    )
    payload = case.steal() + f"; echo escaped > {case.root / 'escape' / 'written'}"
    (case.root / "script.yaml").write_text(
        yaml.safe_dump([tool("demo__run", command=payload), {"text": "done"}])
    )
    run = case.run("-q")
    assert run.code in (0, 1), run.stderr
    answer = next(e for e in run.events if e.type == "tool_call_response")
    assert answer.ok and answer.output.startswith("exit "), answer
    assert case.leaked(run) == []
    assert not (case.root / "escape" / "written").exists()
    assert not case.loot.exists()
