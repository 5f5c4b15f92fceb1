"""Recipes: what is accepted, and how each mistake is reported (file, line, key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.errors import RecipeError
from agentci.recipe.load import load_recipe, parse_recipe

MINIMAL = """\
version: 1
name: demo
model: {name: gemini-2.5-flash}
prompt: Fix it.
"""


def test_a_minimal_recipe_gets_the_documented_defaults():
    recipe = parse_recipe(MINIMAL)
    assert recipe.policy.mode == "auto_edit"
    assert recipe.budget.max_turns == 100
    assert recipe.workspace.isolation == "none"
    assert recipe.outputs.dir == ".agentci/out"
    assert recipe.sandbox == "auto"
    assert recipe.allow_no_changes is False


def test_an_unknown_key_names_file_line_and_key(write_recipe):
    path = write_recipe(
        MINIMAL.replace("model: {name: gemini-2.5-flash}", "model:\n  name: m\n  temprature: 1")
    )
    with pytest.raises(RecipeError) as err:
        load_recipe(path)
    assert (err.value.line, err.value.key, err.value.message) == (
        5,
        "model.temprature",
        "unknown key (did you mean 'temperature'?)",
    )
    assert (
        str(err.value) == f"{path}:5: model.temprature: unknown key (did you mean 'temperature'?)"
    )


def test_a_wrong_type_names_the_key_and_line():
    text = MINIMAL + "budget:\n  max_turns: many\n"
    with pytest.raises(RecipeError) as err:
        parse_recipe(text, file="r.yaml")
    assert (err.value.line, err.value.key) == (6, "budget.max_turns")
    assert "integer" in err.value.message


def test_a_non_positive_budget_is_refused():
    with pytest.raises(RecipeError) as err:
        parse_recipe(MINIMAL + "budget: {max_cost_usd: 0}\n")
    assert err.value.key == "budget.max_cost_usd"
    assert "greater than 0" in err.value.message


def test_an_error_inside_a_list_points_at_the_item():
    text = (
        MINIMAL
        + "policy:\n  rules:\n    - {tool: x, decision: allow}\n    - {tool: y, decision: maybe}\n"
    )
    with pytest.raises(RecipeError) as err:
        parse_recipe(text)
    assert (err.value.line, err.value.key) == (8, "policy.rules.1.decision")


def test_bad_yaml_reports_the_line():
    with pytest.raises(RecipeError) as err:
        parse_recipe("version: 1\nname: [x\n", file="bad.yaml")
    assert err.value.line == 3
    assert err.value.message.startswith("invalid YAML")


def test_a_duplicate_key_is_an_error():
    with pytest.raises(RecipeError) as err:
        parse_recipe(MINIMAL + "name: again\n")
    assert (err.value.line, err.value.key, err.value.message) == (5, "name", "duplicate key")


def test_a_recipe_needs_a_prompt_or_tasks():
    with pytest.raises(RecipeError) as err:
        parse_recipe(MINIMAL.replace("prompt: Fix it.\n", ""))
    assert "prompt" in err.value.message


def test_a_missing_file_is_a_recipe_error(tmp_path):
    with pytest.raises(RecipeError) as err:
        load_recipe(tmp_path / "nope.yaml")
    assert err.value.message == "no such recipe file"


def test_a_yaml_list_is_not_a_recipe():
    with pytest.raises(RecipeError) as err:
        parse_recipe("- a\n- b\n")
    assert "mapping" in err.value.message


def test_task_names_must_be_unique():
    text = MINIMAL + "tasks:\n  - {name: a, prompt: x}\n  - {name: a, prompt: y}\n"
    with pytest.raises(RecipeError) as err:
        parse_recipe(text)
    assert "unique" in err.value.message


ROOT = Path(__file__).parents[2]
SHIPPED = sorted([*ROOT.glob("recipes/*.yaml"), *ROOT.glob("examples/*/recipe.yaml")])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_recipe_is_valid(path):
    assert load_recipe(path).version == 1


def _laughs(levels: int) -> str:
    """A "billion laughs" recipe: each level is nine aliases of the one before."""
    lines = [MINIMAL.rstrip("\n"), "x-0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"x-{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.timeout(60)  # before the bound, this recipe kept validate busy for ~25 minutes
def test_yaml_aliases_that_expand_to_billions_of_values_are_refused():
    with pytest.raises(RecipeError) as err:
        parse_recipe(_laughs(10), file="r.yaml")
    assert str(err.value) == (
        "r.yaml:10: holds more than 100000 values once its YAML aliases (*name) are expanded"
    )


def test_an_alias_that_contains_itself_is_refused():
    with pytest.raises(RecipeError) as err:
        parse_recipe(MINIMAL + "x: &a [1, *a]\n", file="r.yaml")
    assert str(err.value) == "r.yaml:5: a YAML alias (*name) refers to a value that contains it"


def test_aliases_that_nest_deeper_than_the_limit_are_refused():
    deep = "[" * 40 + "x" + "]" * 40
    text = MINIMAL + f"x-a: &a {deep}\nx-b: &b {'[' * 30}*a{']' * 30}\n"
    with pytest.raises(RecipeError) as err:
        parse_recipe(text, file="r.yaml")
    assert "nested more than 64 levels deep" in str(err.value)


def test_a_recipe_may_reuse_values_with_aliases():
    text = MINIMAL.replace("prompt: Fix it.\n", "") + (
        "tasks:\n  - {name: a, prompt: &p Fix it.}\n  - {name: b, prompt: *p}\n"
    )
    recipe = parse_recipe(text, file="r.yaml")
    assert [t.prompt for t in recipe.tasks] == ["Fix it.", "Fix it."]
