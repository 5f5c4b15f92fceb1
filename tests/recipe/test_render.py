"""Parameters and templates."""

from __future__ import annotations

import pytest

from agentci.errors import InvalidInput
from agentci.recipe.load import parse_recipe
from agentci.recipe.render import parse_assignments, render, resolve_parameters

RECIPE = """\
version: 1
name: demo
model: {name: m}
parameters:
  target: {type: string, default: tests/}
  jobs: {type: number, default: 2}
  strict: {type: boolean, default: false}
  level: {type: enum, choices: [low, high], default: low}
  ticket: {type: string}
prompt: "Fix {{ target }} ({{ jobs }}, {{ strict }}, {{ level }}, {{ ticket }})"
"""


def test_values_are_typed_and_defaults_fill_in():
    recipe = parse_recipe(RECIPE)
    values = resolve_parameters(recipe, {"ticket": "T-1", "jobs": "4", "strict": "yes"})
    assert values == {
        "target": "tests/",
        "jobs": 4,
        "strict": True,
        "level": "low",
        "ticket": "T-1",
    }
    assert render(recipe.prompt or "", values, where="prompt") == "Fix tests/ (4, True, low, T-1)"


def test_a_parameter_without_default_must_be_given():
    with pytest.raises(InvalidInput, match="'ticket' has no default: pass -p ticket=VALUE"):
        resolve_parameters(parse_recipe(RECIPE), {})


def test_an_unknown_parameter_is_refused():
    with pytest.raises(InvalidInput, match="unknown parameter 'tagret'"):
        resolve_parameters(parse_recipe(RECIPE), {"ticket": "x", "tagret": "y"})


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("jobs", "many", "expected a number"),
        ("strict", "perhaps", "expected true or false"),
        ("level", "medium", "not one of: low, high"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused(name, value, message):
    with pytest.raises(InvalidInput, match=message):
        resolve_parameters(parse_recipe(RECIPE), {"ticket": "x", name: value})


def test_an_undefined_template_variable_is_an_error_not_an_empty_string():
    with pytest.raises(InvalidInput, match="'nothing' is undefined"):
        render("{{ nothing }}", {}, where="prompt")


def test_templates_are_sandboxed():
    with pytest.raises(InvalidInput, match="unsafe"):
        render("{{ x.__class__.__mro__ }}", {"x": 1}, where="prompt")


def test_assignments_split_on_the_first_equals_sign():
    assert parse_assignments(["a=1", "b=x=y", "c="]) == {"a": "1", "b": "x=y", "c": ""}
    with pytest.raises(InvalidInput, match="expected name=value"):
        parse_assignments(["novalue"])
