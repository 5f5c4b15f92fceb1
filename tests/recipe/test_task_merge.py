"""A task's ``budget:`` and ``model:`` are merged field by field into the recipe's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.errors import RecipeError
from agentci.recipe.load import parse_recipe
from agentci.recipe.model_config import Pricing, RetryConfig
from agentci.run.plan import plan_tasks

RECIPE = """\
version: 1
name: merged
model:
  name: gemini-2.5-flash
  fallback: [gemini-2.5-flash-lite]
  pricing: {input_per_mtok: 0.5, output_per_mtok: 3}
  temperature: 0.2
  retry: {attempts: 7, max_delay_seconds: 4}
budget: {max_turns: 12, max_cost_usd: 2.5, max_wall_seconds: 600}
tasks:
  - name: only
    prompt: Do it.
"""


def plan(task_yaml: str):
    recipe = parse_recipe(RECIPE + task_yaml, file="recipe.yaml")
    (task,) = plan_tasks(recipe, {}, Path("out"))
    return task


def test_a_task_budget_keeps_the_recipe_limits_it_does_not_name() -> None:
    budget = plan("    budget: {max_tool_calls: 50}\n").budget
    assert budget.max_tool_calls == 50
    assert (budget.max_turns, budget.max_cost_usd, budget.max_wall_seconds) == (12, 2.5, 600)


def test_a_task_budget_limit_replaces_the_recipe_one() -> None:
    budget = plan("    budget: {max_turns: 3}\n").budget
    assert (budget.max_turns, budget.max_cost_usd) == (3, 2.5)


def test_a_task_model_setting_keeps_fallbacks_pricing_and_retry() -> None:
    model = plan("    model: {temperature: 0.9, retry: {attempts: 2}}\n").model
    assert model.name == "gemini-2.5-flash" and model.temperature == 0.9
    assert model.fallback_names() == ["gemini-2.5-flash-lite"]
    assert model.pricing == Pricing(input_per_mtok=0.5, output_per_mtok=3)
    assert model.retry == RetryConfig(attempts=2, max_delay_seconds=4)


def test_a_task_naming_another_model_drops_the_recipe_models_price() -> None:
    model = plan("    model: {name: gemini-2.5-pro}\n").model
    assert model.name == "gemini-2.5-pro" and model.pricing is None
    assert model.fallback_names() == ["gemini-2.5-flash-lite"]


def test_budget_total_inside_a_task_is_refused() -> None:
    with pytest.raises(RecipeError) as info:
        plan("    budget: {total: {max_tokens: 1000}}\n")
    assert info.value.line == 13
    assert "budget.total caps the whole run" in info.value.message
