"""Building small end-to-end cases: a git workspace, a scripted model, a recipe, one CLI run.

A case lives in ``tmp_path``: ``repo/`` (the workspace, a committed git repo, also the working
directory of the run), ``recipe.yaml`` and ``script.yaml`` next to it (outside the workspace),
and ``out/`` for the outputs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agentci.testing.cli import Run, run_recipe

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t.invalid",
}


def write_call(path: str, content: str) -> dict[str, Any]:
    """A scripted reply that writes one file."""
    return {"calls": [{"name": "write_file", "args": {"file_path": path, "content": content}}]}


def shell_call(command: str) -> dict[str, Any]:
    """A scripted reply that runs one shell command."""
    return {"calls": [{"name": "run_shell_command", "args": {"command": command}}]}


@dataclass
class Case:
    """One prepared case (see the module docstring)."""

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
        """``agentci run recipe.yaml --out out ARGS`` in the workspace."""
        return run_recipe(self.recipe, self.out, *args, cwd=self.repo, env=env)

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """The same run, started in the background (its own session, for signal tests)."""
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


def make_case(
    root: Path,
    script: list[Any] | None,
    recipe: dict[str, Any],
    files: dict[str, str] | None = None,
) -> Case:
    """Write the workspace, the script (model ``scripted:script.yaml`` unless the recipe names
    another model) and the recipe (``sandbox: none`` and a prompt unless given)."""
    case = Case(root)
    case.repo.mkdir(parents=True)
    for name, text in (files or {"README.md": "# project\n"}).items():
        (case.repo / name).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=case.repo, env={**os.environ, **GIT_ENV}, check=True)
    if script is not None:
        (root / "script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    full = {"version": 1, "name": "case", "model": {"name": "scripted:script.yaml"}}
    full.update({"prompt": "Do the work.", "sandbox": "none"})
    full.update(recipe)
    case.recipe.write_text(yaml.safe_dump(full, sort_keys=False))
    return case


def assert_agree(run: Run, status: str, code: int) -> None:
    """Process exit code, result.json, the last event and summary.md tell the same story."""
    assert run.code == code, (run.code, run.stderr[-2000:])
    events = run.events
    assert events[-1].type == "run_finished", events[-1]
    assert (events[-1].status, events[-1].exit_code) == (status, code)
    assert (run.result["status"], run.result["exit_code"]) == (status, code)
    assert status in (run.out / "summary.md").read_text()
    assert (run.out / "junit.xml").is_file()
    assert (run.out / "patch.diff").is_file() or list(run.out.glob("tasks/*/patch.diff"))


def jsonl_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSONL file, parsed (fails on any broken line)."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_for(predicate: Any, timeout: float = 20.0, what: str = "condition") -> None:
    """Poll ``predicate`` until it is true (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def pids_with(marker: str) -> list[int]:
    """Processes whose command line contains ``marker`` (e.g. a unique ``sleep`` duration)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if marker in cmdline and ") Z " not in stat:  # zombies have already ended
            found.append(int(entry.name))
    return found


def kill_all(pids: list[int]) -> None:
    """Clean up processes a test knows about (after SIGKILL tests)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
