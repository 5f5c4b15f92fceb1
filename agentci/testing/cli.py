"""Run the real ``agentci`` command in a subprocess and read its outputs back.

For agentci's end-to-end tests and for users who test their recipes::

    run = run_recipe(Path("recipe.yaml"), tmp_path / "out", cwd=repo)
    assert run.code == 0 and run.result["status"] == "success"
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.events.types import Event, parse_event


@dataclass
class Run:
    """A finished ``agentci run``: exit code, console, and the outputs parsed back."""

    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def events(self) -> list[Event]:
        lines = (self.out / "events.jsonl").read_text().splitlines()
        return [parse_event(line) for line in lines]

    @property
    def result(self) -> dict[str, Any]:
        return json.loads((self.out / "result.json").read_text())

    @property
    def patch(self) -> str:
        return (self.out / "patch.diff").read_text()


def agentci(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m agentci ARGS`` (in ``cwd``, default the current directory)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "agentci", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_recipe(
    recipe: Path, out: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Run:
    """``agentci run RECIPE --out OUT ARGS`` in ``cwd``."""
    done = agentci("run", str(recipe), "--out", str(out), *args, cwd=cwd, env=env)
    return Run(done.returncode, done.stdout, done.stderr, out)
