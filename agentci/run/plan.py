"""A task's settings, resolved: the recipe's defaults with the task's own values on top."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.recipe.render import convert, render
from agentci.recipe.schema import (
    Budget,
    ContextFiles,
    Guards,
    ModelConfig,
    Recipe,
    Task,
    TaskModel,
    Verify,
)


@dataclass
class TaskPlan:
    """Everything one task needs, with templates rendered (except the prompt, which may use
    ``verify`` results known only once the baseline has run)."""

    name: str
    prompt_template: str
    instructions: str
    model: ModelConfig
    verify: Verify | None
    budget: Budget
    guards: Guards
    allow_no_changes: bool
    out_dir: Path
    values: dict[str, Any]
    mode: str = "auto_edit"  # the policy's mode (the system prompt names it)
    context: ContextFiles | bool = True  # project_context (agentci/context/memory.py)
    system_replace: str | None = None  # system_prompt, read and rendered (run/attachments.py)
    system_append: str = ""
    output_schema: dict[str, Any] | None = None  # output.schema, loaded
    output_attempts: int = 3

    def render_prompt(self, extra: dict[str, Any] | None = None) -> str:
        """The task's prompt with the parameters (and ``extra`` variables) filled in."""
        return render(
            self.prompt_template, {**self.values, **(extra or {})}, where=f"{self.name}: prompt"
        )


def plan_tasks(recipe: Recipe, values: dict[str, Any], out_dir: Path) -> list[TaskPlan]:
    """One plan per task (a recipe without ``tasks`` is one task named after the recipe); a
    task's templates get its own ``params`` on top of ``values``."""
    base_values = values
    if not recipe.tasks:
        instructions = render(recipe.instructions, values, where="instructions")
        assert recipe.prompt is not None  # the schema guarantees a prompt or tasks
        return [
            TaskPlan(
                name=recipe.name,
                prompt_template=recipe.prompt,
                instructions=instructions,
                model=recipe.model,
                verify=_render_verify(recipe.verify, values, recipe.name),
                budget=recipe.budget,
                guards=recipe.guards,
                allow_no_changes=recipe.allow_no_changes,
                out_dir=out_dir,
                values=values,
                **_shared(recipe),
            )
        ]
    plans = []
    for task in recipe.tasks:
        values = task_values(recipe, task, base_values)
        instructions = render(recipe.instructions, values, where="instructions")
        extra = (
            render(task.instructions, values, where=f"{task.name}: instructions")
            if task.instructions
            else ""
        )
        prompt = task.prompt if task.prompt is not None else recipe.prompt
        assert prompt is not None  # checked before planning (agentci.run.preflight)
        plans.append(
            TaskPlan(
                name=task.name,
                prompt_template=prompt,
                instructions="\n\n".join(x for x in (instructions, extra) if x),
                model=merge_model(recipe.model, task.model),
                verify=_render_verify(task.verify or recipe.verify, values, task.name),
                budget=merge_budget(recipe.budget, task.budget),
                guards=task.guards or recipe.guards,
                allow_no_changes=(
                    recipe.allow_no_changes
                    if task.allow_no_changes is None
                    else task.allow_no_changes
                ),
                out_dir=out_dir / "tasks" / task.name,
                values=values,
                **_shared(recipe),
            )
        )
    return plans


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


def _shared(recipe: Recipe) -> dict[str, Any]:
    """Plan fields every task takes from the recipe as it is (files are loaded later)."""
    attempts = recipe.output.attempts if recipe.output is not None else 3
    return {
        "mode": recipe.policy.mode,
        "context": recipe.project_context,
        "output_attempts": attempts,
    }


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
