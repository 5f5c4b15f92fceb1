"""A whole agentci run as a test case: a git workspace, a scripted model, a recipe, the CLI.

    case = write_case(tmp_path, [write_call("calc.py", "..."), {"text": "done"}],
                      {"verify": {"command": "pytest -q"}}, files={"calc.py": "..."})
    run = case.run()
    assert run.result["status"] == "success"

A case lives in ``root``: ``repo/`` (the workspace — a committed git repository unless
``git=False`` — and the run's working directory), ``recipe.yaml`` and ``script.yaml`` next to
it (outside the workspace, where the agent cannot edit them) and ``out/`` for the outputs. The
script is what the scripted model answers, one reply per model call (:mod:`agentci.testing`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agentci.testing.cli import Run, run_recipe
from agentci.testing.repo import commit_repo, write_files


def tool_call(name: str, **args: Any) -> dict[str, Any]:
    """A scripted reply that makes one tool call."""
    return {"calls": [{"name": name, "args": args}]}


def shell_call(command: str) -> dict[str, Any]:
    """A scripted reply that runs one shell command."""
    return tool_call("run_shell_command", command=command)


def write_call(path: str, content: str) -> dict[str, Any]:
    """A scripted reply that writes one file."""
    return tool_call("write_file", file_path=path, content=content)


@dataclass
class Case:
    """One case on disk (see the module docstring)."""

    root: Path

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def recipe(self) -> Path:
        return self.root / "recipe.yaml"

    @property
    def out(self) -> Path:
        return self.root / "out"

    def run(self, *args: str, env: dict[str, str] | None = None) -> Run:
        """``agentci run recipe.yaml --out out ARGS`` in the workspace; ``env`` is added to
        this process's environment."""
        return run_recipe(self.recipe, self.out, *args, cwd=self.repo, env=env)

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """The same run, started in the background in its own session (for signal tests)."""
        cmd = [sys.executable, "-m", "agentci", "run", str(self.recipe), "--out", str(self.out)]
        return subprocess.Popen(
            [*cmd, *args],
            cwd=self.repo,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )


def write_case(
    root: Path,
    script: list[Any] | None,
    recipe: dict[str, Any],
    files: dict[str, str] | None = None,
    *,
    git: bool = True,
    scripts: dict[str, list[Any]] | None = None,
) -> Case:
    """Write a case under ``root``: the workspace with ``files`` (a README by default), the
    script (unless ``None``), more scripts by file name, and the recipe — ``recipe`` over a
    minimal one (``model: scripted:script.yaml`` and a prompt; every other field at agentci's
    defaults)."""
    case = Case(root)
    files = files or {"README.md": "# project\n"}
    if git:
        commit_repo(case.repo, files)
    else:
        case.repo.mkdir(parents=True)
        write_files(case.repo, files)
    for name, replies in {"script.yaml": script, **(scripts or {})}.items():
        if replies is not None:
            (root / name).write_text(yaml.safe_dump(replies, sort_keys=False))
    full = {"version": 1, "name": "case", "model": {"name": "scripted:script.yaml"}}
    full["prompt"] = "Do the work."
    full.update(recipe)
    case.recipe.write_text(yaml.safe_dump(full, sort_keys=False))
    return case
