"""A repository with four broken modules and a recipe of four tasks, one per module.

Task ``t1`` and ``t2`` fix their module (verify passes: success); ``t3`` writes a wrong fix
(verify fails: verify_failed, exit 1); ``t4`` edits its module, then its one allowed turn is
spent (budget_exhausted, exit 3). Each task has its own scripted model and its own verify
(real pytest on its own test file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import junitparser
import yaml
from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload

from agentci.testing.repo import commit_repo

#: The venv's python (with pytest) first on PATH, for the verify commands.
#: Verify's pytest without the venv's auto-loaded plugins (tests/lean_pytest.py).
ENV = {
    "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    **NO_PLUGIN_AUTOLOAD,
}
FIXES = {"t1": "1", "t2": "2", "t3": "99", "t4": "4"}  # what each task's model writes
EXPECTED = {"t1": "success", "t2": "success", "t3": "verify_failed", "t4": "budget_exhausted"}


def module(value: str) -> str:
    return f"def value():\n    return {value}\n"


@dataclass
class Batch:
    """The case's folders: ``repo/`` (where agentci runs), recipe and scripts beside it."""

    root: Path

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def recipe(self) -> Path:
        return self.root / "recipe.yaml"

    def agentci(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
        return subprocess.run(
            [sys.executable, "-m", "agentci", *args],
            cwd=self.repo,
            env={**os.environ, **ENV, **(env or {})},
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "agentci", *args], cwd=self.repo,
            env={**os.environ, **ENV}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip


def make_batch(
    root: Path,
    scripts: dict[str, list[Any]] | None = None,
    *,
    t4_turns: int | None = 1,
    verify: bool = True,
    **recipe: Any,
) -> Batch:
    """The repository, one script per task and the recipe (``recipe`` keys override;
    ``t4_turns``: t4's ``max_turns``; ``verify=False``: no verify)."""
    case = Batch(root)
    files = {"mods/__init__.py": "", ".gitignore": "__pycache__/\n.pytest_cache/\n"}
    for i in range(1, 5):
        files[f"mods/m{i}.py"] = module("0")
        files[f"tests/test_m{i}.py"] = (
            f"from mods.m{i} import value\n\n\ndef test_value():\n    assert value() == {i}\n"
        )
    commit_repo(case.repo, files)
    tasks = []
    for i in range(1, 5):
        name = f"t{i}"
        write = {"name": "write_file",
                 "args": {"file_path": f"mods/m{i}.py", "content": module(FIXES[name])}}  # fmt: skip
        usage = {"prompt_tokens": 100, "output_tokens": 10}  # the same in every execution
        script = (scripts or {}).get(name) or [
            {"calls": [write], "usage": usage},
            {"text": f"{name} done", "usage": usage},
        ]
        (root / f"{name}.yaml").write_text(yaml.safe_dump(script))
        task: dict[str, Any] = {
            "name": name,
            "prompt": f"Fix mods/m{i}.py",
            "model": {"name": f"scripted:{name}.yaml"},
            "verify": {
                "command": f"python -m pytest -q -p no:cacheprovider tests/test_m{i}.py",
                "attempts": 1,
                "runner": "pytest",
            },  # fmt: skip
        }
        if not verify:
            del task["verify"]
        if name == "t4" and t4_turns is not None:
            task["budget"] = {"max_turns": t4_turns}
        tasks.append(task)
    full = {"version": 1, "name": "fix", "model": {"name": "scripted:t1.yaml"},
            "sandbox": "none", "tasks": tasks}  # fmt: skip
    full.update(recipe)
    full["policy"] = without_plugin_autoload(full.get("policy"))
    case.recipe.write_text(yaml.safe_dump(full, sort_keys=False))
    return case


def result(out: Path) -> dict[str, Any]:
    return json.loads((out / "result.json").read_text())


def suites(junit: Path) -> dict[str, Any]:
    """The suites of a JUnit file, by name (parsed back with junitparser)."""
    xml = junitparser.JUnitXml.fromfile(str(junit))
    return {suite.name: suite for suite in xml}


def comparable_result(data: dict[str, Any]) -> dict[str, Any]:
    """A merged result.json without what differs between two executions (times)."""
    data = {k: v for k, v in data.items() if k not in ("started_at", "duration_ms")}
    data["tasks"] = [
        {k: v for k, v in t.items() if k not in ("started_at", "duration_ms")}
        for t in data["tasks"]
    ]
    return data


def comparable_junit(path: Path) -> list[tuple[Any, ...]]:
    """The suites and cases of a JUnit file without times and run ids."""
    out = []
    for suite in junitparser.JUnitXml.fromfile(str(path)):
        cases = [(c.name, c.classname, [(type(r).__name__, r.message) for r in c.result])
                 for c in suite]  # fmt: skip
        out.append((suite.name, suite.tests, suite.failures, suite.errors, cases))
    return out


def comparable_summary(path: Path) -> str:
    """summary.md without the durations (the usage line holds no time)."""
    return path.read_text()
