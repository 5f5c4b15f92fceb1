"""Command tools (``tools.commands``): a recipe author's shell command as a typed tool, run by
the real CLI on a real repository, the model scripted."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.case import tool_call, write_case

SANDBOX = "bwrap" if bwrap_problem() is None else "none"
HOSTILE = "; rm -rf . #"
SHOW = {
    "name": "show",
    "description": "Print a path as the command gets it, twice.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
    "command": "printf '[%s]\\n' {{ path }} \"$ARG_PATH\"",
}


def _case(
    tmp_path: Path,
    script: list[Any],
    rules: list[dict[str, Any]] | None = None,
    sandbox: str = SANDBOX,
) -> Any:
    recipe = {
        "sandbox": sandbox,
        "allow_no_changes": True,
        "tools": {"commands": [SHOW]},
        "policy": {"rules": [{"tool": "show", "decision": "allow"}] if rules is None else rules},
    }
    return write_case(tmp_path, script, recipe, {"README.md": "# keep me\n", "src/a.py": "x = 1\n"})


def _response(run: Any, name: str) -> Any:
    return next(e for e in run.events if e.type == "tool_call_response" and e.name == name)


@pytest.mark.parametrize("sandbox", sorted({"none", SANDBOX}))
def test_a_hostile_argument_is_data_the_command_sees_literally(tmp_path: Path, sandbox: str):
    script = [{"calls": [{"name": "show", "args": {"path": HOSTILE}}]}, {"text": "ok"}]
    case = _case(tmp_path, script, sandbox=sandbox)
    run = case.run("-q")
    assert run.code == 0, run.stderr
    shown = _response(run, "show")
    assert shown.ok and shown.exit_code == 0
    assert shown.output.endswith(f"Output:\n[{HOSTILE}]\n[{HOSTILE}]\n")
    assert (case.repo / "README.md").read_text() == "# keep me\n"
    assert (case.repo / "src/a.py").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=case.repo, capture_output=True, text=True
    )
    assert status.stdout == ""


def test_the_schema_refuses_arguments_before_anything_runs(tmp_path: Path):
    script = [tool_call("show", path="a", extra="x"), {"text": "ok"}]
    run = _case(tmp_path, script).run("-q")
    assert run.code == 0, run.stderr
    shown = _response(run, "show")
    assert not shown.ok
    assert "Additional properties are not allowed ('extra' was unexpected)" in shown.error


def test_without_a_rule_a_command_tool_is_denied(tmp_path: Path):
    script = [tool_call("show", path="a"), {"text": "ok"}]
    run = _case(tmp_path, script, rules=[]).run("-q")
    assert run.code == 0, run.stderr
    shown = _response(run, "show")
    assert shown.error.startswith("denied by policy (mode:auto_edit): show runs a program")


def test_a_command_tool_named_like_a_built_in_tool_is_refused(tmp_path: Path):
    case = _case(tmp_path, [{"text": "ok"}])
    text = case.recipe.read_text().replace("name: show", "name: read_file")
    case.recipe.write_text(text)
    run = case.run("-q")
    assert run.code == 2
    assert "'read_file' is a built-in tool's name" in run.stderr
