"""agentci installed inside the workspace (a ``.venv``) is out of the agent's reach.

The host imports agentci's modules and runs its programs after the agent has worked: a file the
agent changes in that installation would run on the host with agentci's secrets. Both ways to
write are closed: the file tools refuse it (and say why), the sandbox mounts it read-only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from attack_case import CANARIES, make_attack, tool
from test_attack_wave3b import PAYLOAD, _workspace_venv

from agentci.events.tool_events import ToolCallResponse

SITE = f".venv/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"


def test_agent_cannot_plant_a_module_in_agentcis_workspace_venv(tmp_path: Path) -> None:
    loot = tmp_path / "escape" / "loot"
    payload = PAYLOAD.format(loot=str(loot))
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path=f"{SITE}/mdurl.py", content=payload),
            tool("run_shell_command", command=f"cp a.py {SITE}/markdown_it.py"),
            {"text": "done"},
        ],
        {"policy": {"mode": "yolo"}},  # the shell is let through: the sandbox must hold
        files={".gitignore": ".venv/\n", "a.py": payload},
    )
    entry = _workspace_venv(case.repo)
    done = subprocess.run(
        [str(entry), "run", str(case.recipe), "--out", str(case.out)],
        cwd=case.repo, env={**os.environ, **CANARIES}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert not loot.exists(), f"a module planted in .venv ran on the host\n{done.stderr[-2000:]}"
    assert not (case.repo / SITE / "mdurl.py").exists()
    assert not (case.repo / SITE / "markdown_it.py").exists()
    lines = (case.out / "events.jsonl").read_text().splitlines()
    answers = [e for e in map(ToolCallResponse.model_validate_json, _responses(lines))]
    write, shell = answers
    assert not write.ok
    assert write.error == (
        f"denied by policy (protected:.venv/): {SITE}/mdurl.py is protected (.venv/); it is "
        "agentci's own installation, which the host runs; never writable"
    )
    assert "Read-only file system" in shell.output


def _responses(lines: list[str]) -> list[str]:
    return [line for line in lines if '"type":"tool_call_response"' in line.replace(" ", "")]


def test_a_pythonpath_folder_in_the_workspace_never_feeds_agentcis_imports(tmp_path: Path) -> None:
    """A job that sets ``PYTHONPATH=src`` for its tests: agentci's own lazy imports (the
    Markdown renderer for report.html) do not look there once the agent may have written it."""
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="src/mdurl.py", content=PAYLOAD.format(loot=str(loot))),
            {"text": "done"},
        ],
        files={"src/app.py": "x = 1\n"},
    )
    run = case.run(env={"PYTHONPATH": str(case.repo / "src")})
    assert not loot.exists(), f"agentci imported src/mdurl.py on the host: {loot.read_text()!r}"
    assert run.result["changed_files"] == ["src/mdurl.py"]
