"""Inside GitHub Actions, bad input and an unusable sandbox are annotations on the job, like
budget stops; a virtualenv under /tmp stays usable inside the sandbox."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from e2e_scenario import make_case, shell_call

from agentci.events import types as ev
from agentci.events.console import GitHubAnnotationsSink
from agentci.testing.cli import agentci


def test_invalid_input_is_an_error_annotation(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {"budget": {"max_turns": 0}})
    run = case.run(env={"GITHUB_ACTIONS": "true"})
    assert run.code == 2
    assert run.stdout.splitlines() == [
        f"::error title=agentci::agentci invalid_input (exit 2): {case.recipe}:8: "
        "budget.max_turns: Input should be greater than 0"
    ]


def test_a_missing_recipe_is_an_error_annotation(tmp_path: Path):
    done = agentci("run", "nope.yaml", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert done.returncode == 2
    assert done.stdout == (
        "::error title=agentci::agentci invalid_input (exit 2): nope.yaml: no such recipe file\n"
    )


def test_an_unusable_sandbox_is_a_warning_annotation():
    out = io.StringIO()
    sink = GitHubAnnotationsSink(out, sanitize=lambda text: text)
    sink.write(ev.WarningEvent(kind="sandbox_unavailable", message="bubblewrap is not installed"))
    assert out.getvalue() == (
        "::warning title=agentci::agentci ran without a sandbox: bubblewrap is not installed\n"
    )


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_virtualenv_under_tmp_is_visible_to_the_models_commands(tmp_path: Path):
    venv = tmp_path / "venv"  # tmp_path is under /tmp, which the sandbox makes private
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    tool = venv / "bin" / "project-tool"
    tool.write_text("#!/bin/sh\necho tool-from-the-virtualenv\n")
    tool.chmod(0o755)
    script = [shell_call("project-tool"), {"text": "done"}]
    recipe = {"sandbox": "bwrap", "allow_no_changes": True, "policy": {"mode": "yolo"}}
    case = make_case(tmp_path, script, recipe)
    env = {"PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    run = case.run(env=env)
    assert run.code == 0, run.stderr[-2000:]
    outputs = [e.output for e in run.events if e.type == "tool_call_response"]
    assert "Exit code: 0" in outputs[0] and "tool-from-the-virtualenv" in outputs[0]
