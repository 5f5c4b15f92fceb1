"""The recipe's parameters and templates, checked before anything runs (see
:mod:`agentci.run.preflight`): each problem is a :class:`RecipeError` at its key's line.

A task's ``params`` set parameters for that task only, so a parameter without a default needs a
value from ``-p`` or from the ``params`` of every task; the recipe's templates a task inherits
(``prompt``, ``instructions``, ``verify``) are checked with each task's values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput, RecipeError
from agentci.recipe.load import source_of
from agentci.recipe.render import convert, template_error
from agentci.recipe.schema import Recipe, Task
from agentci.run.plan import task_values
from agentci.verify.template import placeholder

Location = tuple[int | str, ...]


def parameter_values(
    recipe: Recipe,
    given: dict[str, str | list[str]],
    path: Path | str,
    problems: list[RecipeError],
) -> dict[str, Any]:
    """Typed values; each unknown or missing parameter is a problem (missing ones get a
    placeholder so the templates can still be checked). A parameter every task sets has no
    recipe-wide value."""
    source = source_of(recipe)
    known = ", ".join(sorted(recipe.parameters)) or "none"
    for name in sorted(set(given) - set(recipe.parameters)):
        problems.append(
            RecipeError(f"unknown parameter {name!r} (this recipe takes: {known})", file=path)
        )
    tasks = recipe.tasks or []
    values: dict[str, Any] = {}
    for name, spec in recipe.parameters.items():
        raw = given.get(name, spec.default)
        if raw is None:
            unset = [t.name for t in tasks if name not in t.params]
            if tasks and not unset:
                continue
            hint = f" (or set it in the params of task {unset[0]!r})" if unset else ""
            problems.append(
                source.error(f"has no default: pass -p {name}=VALUE{hint}", "parameters", name)
            )
            values[name] = f"<{name}>"
            continue
        try:
            values[name] = convert(name, spec, raw)
        except InvalidInput as err:
            problems.append(source.error(str(err), "parameters", name))
            values[name] = f"<{name}>"
    return values


def task_param_problems(recipe: Recipe) -> list[RecipeError]:
    """Each task parameter the recipe does not declare, or whose value has the wrong type."""
    source = source_of(recipe)
    problems = []
    for i, task in enumerate(recipe.tasks or []):
        for name, raw in task.params.items():
            try:
                task_values(recipe, task.model_copy(update={"params": {name: raw}}), {})
            except InvalidInput as err:
                problems.append(source.error(str(err), "tasks", i, "params", name))
    return problems


def _recipe_templates(recipe: Recipe, task: Task | None) -> Iterator[tuple[Location, str, bool]]:
    """``(location, template, is_prompt)`` for the recipe's templated fields (those ``task``
    inherits; all with no task)."""
    yield ("instructions",), recipe.instructions, False
    if recipe.prompt is not None and (task is None or task.prompt is None):
        yield ("prompt",), recipe.prompt, True
    if recipe.verify is not None and (task is None or task.verify is None):
        yield ("verify", "command"), recipe.verify.command, False
        if recipe.verify.junit:
            yield ("verify", "junit"), recipe.verify.junit, False


def _task_templates(i: int, task: Task) -> Iterator[tuple[Location, str, bool]]:
    if task.prompt is not None:
        yield ("tasks", i, "prompt"), task.prompt, True
    if task.instructions:
        yield ("tasks", i, "instructions"), task.instructions, False
    if task.verify is not None:
        yield ("tasks", i, "verify", "command"), task.verify.command, False
        if task.verify.junit:
            yield ("tasks", i, "verify", "junit"), task.verify.junit, False


def template_problems(recipe: Recipe, values: dict[str, Any]) -> list[RecipeError]:
    """Each template that does not render (once per field), and each task left without a
    prompt."""
    source = source_of(recipe)
    problems: dict[Location, RecipeError] = {}
    checks: list[tuple[Location, str, bool, dict[str, Any]]] = []
    if not recipe.tasks:
        checks = [(*c, values) for c in _recipe_templates(recipe, None)]
    for i, task in enumerate(recipe.tasks or []):
        if task.prompt is None and recipe.prompt is None:
            problems[("tasks", i)] = source.error(
                f"task {task.name!r} has no prompt, and the recipe has none to inherit", "tasks", i
            )
        try:
            own = task_values(recipe, task, values)
        except InvalidInput:
            continue  # reported by task_param_problems
        templates = [*_recipe_templates(recipe, task), *_task_templates(i, task)]
        checks += [(*c, own) for c in templates]
    for loc, template, is_prompt, vals in checks:
        if loc in problems:
            continue
        extra = {"verify": placeholder("")} if is_prompt else {}
        error = template_error(template, {**vals, **extra})
        if error:
            problems[loc] = source.error(f"template error: {error}", *loc)
    return list(problems.values())
