"""The plan resolves each task into one TaskSpec: the recipe's defaults, the task's own values,
and the command line's budget values on top of both, applied once, in the plan."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agentci.run.preflight import check_recipe

RECIPE = """\
version: 1
name: spec
model: {name: scripted:replies.yaml}
budget: {max_turns: 50, max_wall_seconds: 600}
policy: {mode: read_only, rules: [{tool: run_shell_command, command: pytest, decision: allow}]}
sandbox: none
setup: ["true"]
context: {compress_at: 0.6}
loop_detection: {tool_calls: false}
hooks: {before_tool: [{matcher: "*", command: "true"}]}
tasks:
  - {name: own, prompt: Go., budget: {max_turns: 5}}
  - {name: inherits, prompt: Go on.}
"""


@pytest.fixture
def recipe(tmp_path: Path) -> Path:
    (tmp_path / "replies.yaml").write_text("- text: done\n")
    path = tmp_path / "r.yaml"
    path.write_text(RECIPE)
    return path


def test_max_turns_from_the_command_line_beats_every_task_and_leaves_the_recipe_as_written(
    recipe: Path,
):
    checked = check_recipe(recipe, [], overrides={"max_turns": 2}, live=False)
    assert [(s.name, s.budget.max_turns) for s in checked.plans] == [("own", 2), ("inherits", 2)]
    assert [s.budget.max_wall_seconds for s in checked.plans] == [600, 600]
    assert checked.recipe.budget.max_turns == 50  # the override lives in the specs only


def test_without_an_override_each_task_keeps_its_own_budget(recipe: Path):
    checked = check_recipe(recipe, [], live=False)
    assert [s.budget.max_turns for s in checked.plans] == [5, 50]


def test_the_spec_holds_every_setting_the_task_runs_with(recipe: Path):
    (spec, _) = check_recipe(recipe, [], live=False).plans
    assert spec.policy.mode == spec.mode == "read_only"
    assert spec.policy.rules[0].command == "pytest"
    assert (spec.sandbox, spec.setup.commands) == ("none", ["true"])
    assert spec.context.compress_at == 0.6 and spec.loop_detection.tool_calls is False
    assert spec.hooks.before_tool[0].command == "true"
    assert spec.several is True


def test_a_spec_cannot_be_changed_after_the_plan(recipe: Path):
    (spec, _) = check_recipe(recipe, [], live=False).plans
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.budget = spec.budget  # type: ignore[misc]
