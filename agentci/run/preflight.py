"""Checks made once a recipe is planned and before anything runs; failures are invalid_input.

* Command-line budget overrides (``--max-turns``, ``--max-cost``, ``--timeout``) apply to every
  task, including tasks that have a ``budget:`` of their own: the plan applies them, once
  (:func:`agentci.run.plan.plan_tasks`); the recipe stays as written.
* A cost budget (``max_cost_usd`` of a task or ``budget.total``) needs a price for every model
  that may answer (the model, each fallback and the loop judge, each priced on its own:
  ``model.pricing`` is the price of ``model.name`` only): agentci refuses to start rather than run with a cap it
  cannot enforce.
* Each model can be built: ``model.provider`` names a provider, each model name is one a
  provider serves (:mod:`agentci.providers.registry`: a Gemini model, ``openai:NAME``,
  ``replay:FILE``, ``scripted:FILE``…; a likely typo is named), a ``scripted:`` or ``replay:``
  file exists and parses, and (for ``run``, not ``validate``) a live model has an API key;
  ``model.cache: explicit`` is refused for a model whose provider cannot make a context cache
  (OpenAI-compatible servers: they cache by themselves, there is nothing to ask of them).
* Each hook whose first word is a relative or absolute path names a file that exists.

:func:`check_recipe` runs every check ``run`` makes before any model call and reports every
problem it finds, each as ``file:line: key: message`` (``agentci validate`` prints them all).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput, RecipeError, RecipeErrors
from agentci.hooks.commands import is_inside, resolve_command
from agentci.providers import registry
from agentci.providers.pricing import has_price
from agentci.recipe.hook_config import STAGES
from agentci.recipe.load import builtin_recipe, load_recipe, source_of
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.prompt_recipe import BUILTIN_FILE, RecipeFields
from agentci.recipe.render import parse_assignments
from agentci.recipe.schema import Recipe
from agentci.run.attachments import attach
from agentci.run.near_misses import did_you_mean, tool_names, unmatched_tools
from agentci.run.plan import merge_model, plan_tasks
from agentci.run.template_checks import parameter_values, task_param_problems, template_problems
from agentci.spec import TaskSpec


def check_cost_budget_prices(recipe: Recipe, plans: list[TaskSpec]) -> None:
    """Refuse a cost budget on a model without a known price (see the module docstring)."""
    total_cost = recipe.budget.total is not None and recipe.budget.total.max_cost_usd is not None
    for plan in plans:
        daily = plan.budget.daily_usd is not None or plan.budget.per_workflow_usd is not None
        if plan.budget.max_cost_usd is None and not total_cost and not daily:
            continue
        judge = plan.loop_detection.model_check
        judges = [judge.model] if judge.enabled and judge.model else []
        for name in [plan.model.name, *plan.model.fallback_names(), *judges]:
            if not has_price(name, plan.model.pricing_for(name)):
                where = (
                    "model.pricing: {input_per_mtok: ..., output_per_mtok: ...}"
                    if name == plan.model.name
                    else "a model with a known price as loop_detection.model_check.model"
                    if name in judges
                    else f"the fallback as {{name: {name}, pricing: {{input_per_mtok: ..., "
                    "output_per_mtok: ...}}"
                )
                raise InvalidInput(
                    f"task {plan.name}: budget.max_cost_usd is set but model {name!r} has no "
                    f"known price; add {where} to the recipe, or drop the cost budget"
                )


@dataclass
class CheckedRecipe:
    """A recipe that passed every check: its typed parameter values and task plans."""

    recipe: Recipe
    values: dict[str, Any]
    plans: list[TaskSpec]


def check_recipe(
    path: Path | None,
    params: list[str],
    *,
    out_dir: Path | None = None,
    overrides: dict[str, Any] | None = None,
    live: bool = True,
    fields: RecipeFields | None = None,
    loaded: Recipe | None = None,
) -> CheckedRecipe:
    """Load ``path`` (None: the built-in recipe of ``--prompt``) with the command line's
    ``fields`` and make every check of the module docstring; raise one
    :class:`~agentci.errors.RecipeError` listing all problems (``live=False``: no API key
    needed, the SDK is not imported). Files the recipe names are relative to its folder (the
    working directory for the built-in recipe). ``loaded``: ``path`` loaded already, without
    ``fields`` (a batch reads each recipe's parameters first)."""
    # a recipe that does not parse can be checked no further
    if loaded is not None and path is not None and fields is None:
        recipe = loaded
    else:
        recipe = load_recipe(path, fields) if path else builtin_recipe(fields or RecipeFields())
    recipe_dir = path.resolve().parent if path is not None else Path.cwd()
    file: Path | str = path if path is not None else BUILTIN_FILE
    source = source_of(recipe)
    problems: list[RecipeError] = []
    try:
        given = parse_assignments(params)
    except InvalidInput as err:
        problems.append(RecipeError(str(err), file=file))
        given = {}
    values = parameter_values(recipe, given, file, problems)
    problems.extend(task_param_problems(recipe))
    problems.extend(template_problems(recipe, values))
    flag = fields is not None and fields.model is not None
    problems.extend(_model_problems(recipe, recipe_dir, live=live, model_flag=flag))
    problems.extend(_hook_problems(recipe, recipe_dir))
    problems.extend(_rule_problems(recipe))
    plans: list[TaskSpec] = []
    if not problems:
        plans = plan_tasks(recipe, values, out_dir or Path(recipe.outputs.dir), overrides)
        try:
            plans = attach(recipe, plans, recipe_dir)
        except RecipeError as err:
            problems.append(err)
        try:
            check_cost_budget_prices(recipe, plans)
        except InvalidInput as err:
            problems.append(source.error(str(err), "budget", "max_cost_usd"))
    if problems:
        problems.sort(key=lambda p: (p.file != str(file), p.line or 0))
        raise problems[0] if len(problems) == 1 else RecipeErrors(problems)
    return CheckedRecipe(recipe, values, plans)


def _models(recipe: Recipe) -> Iterator[tuple[tuple[int | str, ...], Any, ModelConfig]]:
    """``(where, the model section as written, the model the task gets)``."""
    yield ("model",), recipe.model, recipe.model
    for i, task in enumerate(recipe.tasks or []):
        if task.model is not None:
            yield ("tasks", i, "model"), task.model, merge_model(recipe.model, task.model)


def _model_problems(
    recipe: Recipe, recipe_dir: Path, *, live: bool, model_flag: bool = False
) -> list[RecipeError]:
    """Each model name agentci cannot serve, each model file missing or broken, each missing
    key (``live``); ``model_flag``: the model's name came from ``--model``, so its problems
    are the flag's, not a recipe line's."""
    source = source_of(recipe)
    problems: list[RecipeError] = []
    for loc, written, model in _models(recipe):
        if written.provider is not None and written.provider not in registry.names():
            try:
                registry.check_provider(written.provider)
            except InvalidInput as err:
                problems.append(source.error(str(err), *loc, "provider"))
            continue
        bad_name = False
        names: list[tuple[tuple[str | int, ...], str]] = (
            [(("name",), written.name)] if written.name is not None else []
        )
        names += [(("fallback", i), name) for i, name in enumerate(written.fallback_names())]
        for where, name in names:
            text = _name_problem(name)
            if text is not None:
                bad_name = True
                problems.append(_model_error(source, text, loc, where, model_flag))
        if bad_name:
            continue
        cache_problem = _cache_problem(model)
        if cache_problem is not None:
            problems.append(source.error(cache_problem, *loc, "cache"))
        try:
            if live:
                registry.make_provider(model, base_dir=recipe_dir)
            else:  # no key needed, no SDK imported
                registry.check_model(model, recipe_dir)
        except RecipeError as err:  # the model's file is wrong at a known place
            problems.extend(getattr(err, "errors", [err]))
        except InvalidInput as err:
            text = str(err).removeprefix("model.name: ")
            if model_flag and written.name == model.name == recipe.model.name:
                problems.append(RecipeError(text, key="--model"))
            else:
                problems.append(source.error(text, *loc, "name"))
    return problems


def _cache_problem(model: ModelConfig) -> str | None:
    """Why ``model.cache: explicit`` cannot be served for ``model.name`` (None: it can, or it
    is not asked). Offline models (replay, scripted) take it and make no cache."""
    if model.cache != "explicit":
        return None
    try:
        entry = registry.route(model.name)[0]
    except InvalidInput:
        return None  # the name's own problem is said already
    if entry.explicit_cache or entry.offline:
        return None
    return (
        f"'explicit' is Gemini's context caching; {entry.name} models "
        f"({model.name!r}) cannot use it (an OpenAI-compatible server caches repeated prompt "
        "prefixes by itself): remove model.cache or set it to implicit"
    )


def _name_problem(name: str) -> str | None:
    """Why no provider serves model ``name`` (or it is a likely typo of a known model)."""
    try:
        meant = registry.misspelt(name)
    except InvalidInput as err:
        return str(err)
    return f"unknown model {name!r} (did you mean {meant!r}?)" if meant else None


def _model_error(
    source: Any,
    text: str,
    loc: tuple[int | str, ...],
    where: tuple[int | str, ...],
    model_flag: bool,
) -> RecipeError:
    """The problem of a model name: the ``--model`` flag's when it gave the name."""
    if model_flag and loc == ("model",) and where == ("name",):
        return RecipeError(text, key="--model")
    return source.error(text, *loc, *where)


def _rule_problems(recipe: Recipe) -> list[RecipeError]:
    """Each policy rule naming a tool that does not exist (it would never match)."""
    source = source_of(recipe)
    problems = []
    for i, rule in enumerate(recipe.policy.rules):
        commands = [c.name for c in recipe.tools.commands]
        for pattern in unmatched_tools(rule.tool, commands, recipe.tools.mcp_servers):
            hint = did_you_mean(pattern, tool_names(commands))
            problems.append(
                source.error(
                    f"no tool is named {pattern!r}, so the rule never matches{hint}",
                    "policy",
                    "rules",
                    i,
                    "tool",
                )
            )
    return problems


def _hook_problems(recipe: Recipe, recipe_dir: Path) -> list[RecipeError]:
    source = source_of(recipe)
    problems = []
    for stage in STAGES:
        for i, hook in enumerate(getattr(recipe.hooks, stage)):
            _, script = resolve_command(hook.command, recipe_dir)
            relative = not hook.command.lstrip().startswith("/")
            if script is not None and relative and not is_inside(script, recipe_dir):
                problems.append(
                    source.error(
                        f"{hook.command!r}: hooks run from a private copy of the recipe's "
                        "folder: a relative command names a file inside that folder (no '..')",
                        "hooks",
                        stage,
                        i,
                        "command",
                    )
                )
            elif script is not None and not script.is_file():
                problems.append(
                    source.error(
                        f"no such hook script: {script} (a relative path is taken from the "
                        "recipe's folder)",
                        "hooks",
                        stage,
                        i,
                        "command",
                    )
                )
    return problems
