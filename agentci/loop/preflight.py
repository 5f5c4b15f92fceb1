"""Checks made once a recipe is planned and before anything runs; failures are invalid_input.

* Command-line budget overrides (``--max-turns``, ``--max-cost``, ``--timeout``) apply to every
  task, including tasks that have a ``budget:`` of their own.
* A cost budget (``max_cost_usd`` of a task or ``budget.total``) needs a price for every model
  that may answer (the model and its fallbacks): agentci refuses to start rather than run with
  a cap it cannot enforce.
* Each model can be built: a live model has an API key, a ``scripted:`` or ``replay:`` file
  exists and parses (so the user gets one line, not a failed task).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.loop.plan import TaskPlan
from agentci.recipe.schema import Recipe


def apply_budget_overrides(plans: list[TaskPlan], overrides: dict[str, Any]) -> None:
    """Put the command line's budget values on top of every task's budget."""
    if not overrides:
        return
    for plan in plans:
        plan.budget = plan.budget.model_copy(update=overrides)


def check_cost_budget_prices(recipe: Recipe, plans: list[TaskPlan]) -> None:
    """Refuse a cost budget on a model without a known price (see the module docstring)."""
    from agentci.providers.pricing import has_price

    total_cost = recipe.budget.total is not None and recipe.budget.total.max_cost_usd is not None
    for plan in plans:
        if plan.budget.max_cost_usd is None and not total_cost:
            continue
        for name in [plan.model.name, *plan.model.fallback]:
            if not has_price(name, plan.model.pricing):
                raise InvalidInput(
                    f"task {plan.name}: budget.max_cost_usd is set but model {name!r} has no "
                    "known price; add model.pricing: {input_per_mtok: ..., output_per_mtok: ...} "
                    "to the recipe, or drop the cost budget"
                )


def check_models(plans: list[TaskPlan], recipe_dir: Path) -> None:
    """Build each task's provider once: a missing key, a missing or broken ``scripted:`` /
    ``replay:`` file is reported now, in one line (building sends nothing to a model)."""
    from agentci.providers import make_provider

    seen: set[str] = set()
    for plan in plans:
        key = plan.model.model_dump_json()
        if key not in seen:
            seen.add(key)
            make_provider(plan.model, base_dir=recipe_dir)


def preflight(
    recipe: Recipe, plans: list[TaskPlan], overrides: dict[str, Any], *, recipe_dir: Path
) -> None:
    """All checks above, in order; raises :class:`InvalidInput`."""
    apply_budget_overrides(plans, overrides)
    check_cost_budget_prices(recipe, plans)
    check_models(plans, recipe_dir)
