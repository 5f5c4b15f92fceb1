"""The plan: each task's :class:`~agentci.spec.TaskSpec`, resolved once — the recipe's
defaults with the task's own values on top, then the command line's budget values on top of
everything (``--max-turns``, ``--max-cost``, ``--timeout`` apply to every task, including tasks
that have a ``budget:`` of their own). Nothing after the plan reads the raw recipe for a task."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig, TaskModel
from agentci.recipe.render import convert, render
from agentci.recipe.schema import Recipe, Task
from agentci.recipe.verify_config import Verify
from agentci.spec import TaskSpec


def plan_tasks(
    recipe: Recipe,
    values: dict[str, Any],
    out_dir: Path,
    overrides: dict[str, Any] | None = None,
) -> list[TaskSpec]:
    """One spec per task (a recipe without ``tasks`` is one task named after the recipe); a
    task's templates get its own ``params`` on top of ``values``; ``overrides`` (the command
    line's budget fields) go on top of every task's budget, here and nowhere else."""
    tasks: list[Task | None] = list(recipe.tasks) if recipe.tasks else [None]
    specs = [_task_spec(recipe, task, values, out_dir) for task in tasks]
    if not overrides:
        return specs
    return [replace(s, budget=s.budget.model_copy(update=overrides)) for s in specs]


def render_prompt(spec: TaskSpec, extra: dict[str, Any] | None = None) -> str:
    """The task's prompt with the parameters (and ``extra`` variables) filled in."""
    return render(
        spec.prompt_template, {**spec.values, **(extra or {})}, where=f"{spec.name}: prompt"
    )


def _task_spec(
    recipe: Recipe, task: Task | None, base_values: dict[str, Any], out_dir: Path
) -> TaskSpec:
    """The spec of ``task`` (None: the recipe's one task)."""
    values = base_values if task is None else task_values(recipe, task, base_values)
    name = recipe.name if task is None else task.name
    instructions = render(recipe.instructions, values, where="instructions")
    if task is not None and task.instructions:
        own = render(task.instructions, values, where=f"{task.name}: instructions")
        instructions = "\n\n".join(x for x in (instructions, own) if x)
    prompt = task.prompt if task is not None and task.prompt is not None else recipe.prompt
    assert prompt is not None  # the schema guarantees a prompt or tasks; checked before planning
    allow_no_changes = recipe.allow_no_changes
    if task is not None and task.allow_no_changes is not None:
        allow_no_changes = task.allow_no_changes
    return TaskSpec(
        name=name,
        prompt_template=prompt,
        instructions=instructions,
        model=merge_model(recipe.model, task.model if task else None),
        verify=_render_verify((task and task.verify) or recipe.verify, values, name),
        budget=merge_budget(recipe.budget, task.budget if task else None),
        guards=(task and task.guards) or recipe.guards,
        allow_no_changes=allow_no_changes,
        out_dir=out_dir if task is None else out_dir / "tasks" / task.name,
        values=values,
        policy=recipe.policy,
        workspace=recipe.workspace,
        setup=recipe.setup_config,
        sandbox=recipe.sandbox,
        hooks=recipe.hooks,
        context=recipe.context,
        loop_detection=recipe.loop_detection,
        tools=recipe.tools,
        project_context=recipe.project_context,
        output_attempts=recipe.output.attempts if recipe.output is not None else 3,
        several=len(recipe.tasks or []) > 1,
    )


def task_values(recipe: Recipe, task: Task, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the task's ``params`` on top, typed as the recipe's parameters."""
    own = {}
    for name, raw in task.params.items():
        spec = recipe.parameters.get(name)
        if spec is None:
            known = ", ".join(sorted(recipe.parameters)) or "none"
            raise InvalidInput(f"unknown parameter {name!r} (this recipe takes: {known})")
        own[name] = convert(name, spec, raw)
    return {**values, **own}


def merge_budget(recipe: Budget, task: Budget | None) -> Budget:
    """The recipe's budget with the limits the task gives on top (``total`` stays the run's)."""
    if task is None:
        return recipe
    return recipe.model_copy(update={f: getattr(task, f) for f in task.model_fields_set})


def merge_model(recipe: ModelConfig, task: TaskModel | None) -> ModelConfig:
    """The recipe's model section with the fields the task gives on top; ``retry`` is merged
    field by field. A task naming another model drops the recipe's ``pricing`` (it was the
    price of the recipe's model) unless it gives its own."""
    if task is None:
        return recipe
    update = {f: getattr(task, f) for f in task.model_fields_set}
    if update.get("name") is None:
        update.pop("name", None)
    if "retry" in update:
        retry = task.retry
        update["retry"] = recipe.retry.model_copy(
            update={f: getattr(retry, f) for f in retry.model_fields_set}
        )
    if update.get("name", recipe.name) != recipe.name and "pricing" not in update:
        update["pricing"] = None
    return ModelConfig.model_validate({**recipe.model_dump(), **_dumped(update)})


def _dumped(update: dict[str, Any]) -> dict[str, Any]:
    return {k: v.model_dump() if hasattr(v, "model_dump") else v for k, v in update.items()}


def _render_verify(verify: Verify | None, values: dict[str, Any], task: str) -> Verify | None:
    if verify is None:
        return None
    command = render(verify.command, values, where=f"{task}: verify.command")
    junit = render(verify.junit, values, where=f"{task}: verify.junit") if verify.junit else None
    return verify.model_copy(update={"command": command, "junit": junit})
