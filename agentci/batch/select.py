"""The tasks of a batch: every task of every recipe, checked before anything runs; shards.

Each task is known by its **key** ``<recipe name>/<task name>`` (a recipe without ``tasks:`` is
one task named after the recipe) and has its outputs in ``<out>/<recipe name>/<task name>/``.

A **shard** is a part of one recipe's tasks, named by an ID that ``agentci run RECIPE --shard
ID`` understands:

* ``K/N`` — the tasks whose position in the recipe (0-based) modulo N is K-1 (so shards
  ``1/N`` … ``N/N`` split the tasks round-robin, like pytest-shard);
* a task's name — just that task.

``-p NAME=VALUE`` goes to every recipe that declares the parameter; a parameter no recipe
declares is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.recipe.load import load_recipe
from agentci.recipe.render import parse_assignments
from agentci.recipe.schema import Recipe
from agentci.reports.folders import task_dir_name
from agentci.run.preflight import check_recipe
from agentci.spec import TaskSpec

_SHARD = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")


@dataclass
class BatchTask:
    """One task of a batch, with its recipe."""

    recipe_path: Path  # as given on the command line
    recipe: Recipe
    plan: TaskSpec
    index: int  # the task's position in its recipe
    values: dict[str, Any]  # the recipe's parameter values

    @property
    def key(self) -> str:
        """``recipe/task``."""
        return f"{self.recipe.name}/{self.plan.name}"

    @property
    def folder(self) -> Path:
        """Where its outputs go, relative to the batch's output folder."""
        return Path(task_dir_name(self.recipe.name)) / task_dir_name(self.plan.name)


def load_tasks(
    recipes: list[Path],
    params: list[str],
    overrides: dict[str, Any] | None = None,
    *,
    live: bool = True,
) -> list[BatchTask]:
    """Check every recipe as ``agentci run`` does (``live=False``: as ``validate`` does, no
    API key needed) and list their tasks, in order; raises :class:`InvalidInput` naming every
    problem (an unknown ``-p``, two recipes of one name)."""
    given = parse_assignments(params)
    loaded = []
    problems: list[str] = []
    for path in recipes:
        if not path.is_file():
            problems.append(f"{path}: no such recipe file")
            continue
        try:
            recipe = load_recipe(path)
        except (InvalidInput, OSError) as err:
            problems.append(str(err))
            continue
        declared = recipe.parameters
        mine = [f"{k}={v}" for k, v in given.items() if k in declared]
        try:
            checked = check_recipe(path, mine, overrides=overrides, live=live, loaded=recipe)
        except (InvalidInput, OSError) as err:
            problems.append(str(err))
            continue
        loaded.append((path, checked, set(declared)))
    used = set().union(*(d for _, _, d in loaded)) if loaded else set()
    for name in sorted(set(given) - used):
        if not problems:
            problems.append(f"-p {name}: no recipe of the batch has a parameter {name!r}")
    names = [checked.recipe.name for _, checked, _ in loaded]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"two recipes of the batch are named {name!r}: their outputs would mix")
    if problems:
        raise InvalidInput("\n".join(problems))
    return [
        BatchTask(path, checked.recipe, plan, i, checked.values)
        for path, checked, _ in loaded
        for i, plan in enumerate(checked.plans)
    ]


def select_shard(tasks: list[BatchTask], shard: str) -> list[BatchTask]:
    """The tasks of shard ``shard`` (see the module docstring); InvalidInput when it names no
    task."""
    m = _SHARD.match(shard)
    if m:
        k, n = int(m.group(1)), int(m.group(2))
        if k > n:
            raise InvalidInput(f"--shard {shard}: K must be between 1 and N")
        chosen = [t for t in tasks if t.index % n == k - 1]
    else:
        chosen = [t for t in tasks if t.plan.name == shard]
    if not chosen:
        names = ", ".join(t.plan.name for t in tasks)
        raise InvalidInput(
            f"--shard {shard}: selects no task (the tasks are: {names}; a shard is K/N or a "
            "task's name)"
        )
    return chosen


def matrix(tasks: list[BatchTask], *, shards: int | None = None) -> dict[str, Any]:
    """A GitHub Actions matrix (``{"include": [...]}``): one entry per task, or with
    ``shards``, at most that many entries per recipe. Each entry names the recipe (as given),
    the shard ID for ``agentci run --shard``, the tasks it runs and the parameters."""
    by_recipe: dict[str, list[BatchTask]] = {}
    for task in tasks:
        by_recipe.setdefault(str(task.recipe_path), []).append(task)
    include = []
    for recipe, group in by_recipe.items():
        first = group[0]
        params = {k: _plain(v) for k, v in first.values.items()}
        if shards is None:
            parts = [(t.plan.name, [t]) for t in group]
        else:
            n = min(shards, len(group))
            parts = [(f"{k}/{n}", [t for t in group if t.index % n == k - 1]) for k in range(1, n + 1)]  # fmt: skip
        for shard, chosen in parts:
            include.append(
                {
                    "name": f"{first.recipe.name} {shard}",
                    "recipe": recipe,
                    "recipe_name": first.recipe.name,
                    "shard": shard,
                    "tasks": [t.plan.name for t in chosen],
                    "params": params,
                }
            )
    return {"include": include}


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) else str(value)
