"""Helpers for the verify tests: small real repos, in-process task runs, shipped recipes."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import junitparser
import yaml
from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload

from agentci.events import types as ev
from agentci.policy.env import child_env
from agentci.providers.base import TextPart
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.schema import Recipe
from agentci.reports.report import TaskReport
from agentci.run.plan import plan_tasks
from agentci.run.task import RunSettings, TaskRun
from agentci.testing.cli import Run, run_recipe

ROOT = Path(__file__).parents[2]
#: The venv's python, pytest, ruff and mypy first on PATH, for verify commands.
PATH_ENV = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
#: The environment of an ``agentci run`` subprocess whose recipe passes NO_PLUGIN_AUTOLOAD on.
VERIFY_ENV = {**PATH_ENV, **NO_PLUGIN_AUTOLOAD}


def verify_child_env(home: Path) -> dict[str, str]:
    """The environment a task gives verify (``child_env``), as for a recipe passing
    NO_PLUGIN_AUTOLOAD on: the venv first on PATH, ``home`` as HOME."""
    return child_env(list(NO_PLUGIN_AUTOLOAD), source=VERIFY_ENV | {"HOME": str(home)})


TESTS = (
    "from calc import add, mul, sub\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "def test_mul():\n    assert mul(3, 4) == 12\n"
)
IGNORE = "__pycache__/\n.pytest_cache/\n"

#: add and mul are wrong: two failing tests, one passing.
CALC = {
    "calc/__init__.py": (
        "def add(a, b):\n    return a - b\n\n\n"
        "def sub(a, b):\n    return a - b\n\n\n"
        "def mul(a, b):\n    return a + b\n"
    ),
    "tests/test_calc.py": TESTS,
    ".gitignore": IGNORE,
}

#: add and sub share a helper; fixing add through the helper breaks sub.
SHARED = {
    "calc/__init__.py": (
        "def _combine(a, b):\n    return a - b\n\n\n"
        "def add(a, b):\n    return _combine(a, b)\n\n\n"
        "def sub(a, b):\n    return _combine(a, b)\n\n\n"
        "def mul(a, b):\n    return a * b\n"
    ),
    "tests/test_calc.py": TESTS,
    ".gitignore": IGNORE,
}


def fix(path: str, old: str, new: str) -> Reply:
    """A scripted reply that edits ``path`` with ``replace``."""
    return Reply(calls=[call("replace", file_path=path, old_string=old, new_string=new)])


def user_prompts(provider: ScriptedProvider) -> list[str]:
    """The user prompts (not tool results) of the last request the model got."""
    if not provider.requests:
        return []
    msgs = provider.requests[-1].messages
    return [
        p.text
        for m in msgs
        if m.role == "user"
        for p in m.parts
        if isinstance(p, TextPart) and not p.thought
    ]


@dataclass
class TaskResult:
    report: TaskReport
    events: list[ev.Event]
    patch: str
    provider: ScriptedProvider
    verify_events: list[ev.VerifyResult] = field(default_factory=list)


def run_task(repo: Path, recipe: dict[str, Any], replies: list[Reply], out: Path) -> TaskResult:
    """Run the recipe's one task in-process on ``repo`` with a scripted model (its verify
    without the venv's pytest plugins, see :data:`NO_PLUGIN_AUTOLOAD`)."""
    recipe = {"version": 1, "name": "t", "model": {"name": "scripted"}, **recipe}
    recipe["policy"] = without_plugin_autoload(recipe.get("policy"))
    parsed = Recipe.model_validate(recipe)
    plan = plan_tasks(parsed, {}, out)[0]
    provider = ScriptedProvider(replies)
    settings = RunSettings(
        recipe=parsed,
        recipe_path=repo / "recipe.yaml",
        base_dir=repo,
        workspace_override=repo,
        provider_factory=lambda _plan: provider,
    )
    events: list[ev.Event] = []
    saved = {name: os.environ.get(name) for name in [*PATH_ENV, *NO_PLUGIN_AUTOLOAD]}
    os.environ.update({**PATH_ENV, **NO_PLUGIN_AUTOLOAD})  # verify's clean env copies these
    try:
        task = TaskRun(plan, settings, events.append)
        report = asyncio.run(task.run())
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    verify = [e for e in events if isinstance(e, ev.VerifyResult)]
    return TaskResult(report, events, task.patch, provider, verify)


def run_shipped(
    name: str, repo: Path, replies: list[dict[str, Any]], tmp: Path, **override: Any
) -> Run:
    """``agentci run recipes/NAME.yaml -w REPO`` in a subprocess, its model scripted (and
    its verify without the venv's pytest plugins, see :data:`NO_PLUGIN_AUTOLOAD`)."""
    data = yaml.safe_load((ROOT / "recipes" / f"{name}.yaml").read_text())
    script = tmp / "replies.yaml"
    script.write_text(yaml.safe_dump(replies))
    data["model"] = {"name": f"scripted:{script}"}
    data["policy"] = without_plugin_autoload(data.get("policy"))
    for key, value in override.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    recipe = tmp / f"{name}.yaml"
    recipe.write_text(yaml.safe_dump(data, sort_keys=False))
    return run_recipe(recipe, tmp / "out", "-w", str(repo), "-q", cwd=repo, env=VERIFY_ENV)


def junit_cases(path: Path) -> dict[str, junitparser.TestCase]:
    """The testcases of a junit.xml, by name (parsed back with junitparser)."""
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = [xml] if isinstance(xml, junitparser.TestSuite) else list(xml)
    return {case.name: case for suite in suites for case in suite}


def case_status(case: junitparser.TestCase) -> str:
    """The ``status`` attribute agentci writes (fixed, regressed, …)."""
    return case._elem.get("status") or ""


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    """A ``replace`` call in a scripted-model YAML file."""
    args = {"file_path": path, "old_string": old, "new_string": new}
    return {"calls": [{"name": "replace", "args": args}]}
