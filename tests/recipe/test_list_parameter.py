"""The ``list`` parameter type: one ``-p name=item`` per item, shell-quoted when rendered."""

from __future__ import annotations

import shlex

import pytest

from agentci.errors import RecipeError
from agentci.recipe.load import parse_recipe
from agentci.recipe.render import parse_assignments, render, resolve_parameters
from agentci.run.preflight import check_recipe

RECIPE = """\
version: 1
name: lint
model: {name: m}
parameters:
  files: {type: list, default: [], description: The files to fix}
  mode: {type: string, default: fast}
prompt: "Fix {{ files | length }} files{% for f in files %} <{{ f }}>{% endfor %}"
verify: {command: "ruff check {{ files }}"}
"""


def _values(*pairs: str) -> dict:
    return resolve_parameters(parse_recipe(RECIPE), parse_assignments(list(pairs)))


def test_each_p_adds_one_item_in_order():
    assert _values("files=b.py", "files=a.py")["files"] == ["b.py", "a.py"]


def test_a_list_renders_shell_quoted_one_argument_per_item():
    names = ["src/a.py", "odd name.py", "$(touch pwned).py", "it's.py"]
    values = _values(*(f"files={n}" for n in names))
    command = render("ruff check {{ files }}", values, where="verify")
    assert shlex.split(command) == ["ruff", "check", *names]


def test_templates_can_loop_over_and_count_the_items():
    values = _values("files=a.py", "files=b.py")
    prompt = render(parse_recipe(RECIPE).prompt or "", values, where="prompt")
    assert prompt == "Fix 2 files <a.py> <b.py>"


def test_the_default_list_and_an_empty_value_give_an_empty_list():
    assert _values()["files"] == []
    assert _values("files=")["files"] == []


def test_a_scalar_parameter_given_twice_keeps_the_last_value():
    assert _values("mode=a", "mode=b")["mode"] == "b"


def test_a_list_default_on_a_string_parameter_is_refused():
    with pytest.raises(RecipeError, match="a list default needs type: list"):
        parse_recipe(RECIPE.replace("mode: {type: string, default: fast}", "mode: {default: [x]}"))


def test_check_recipe_renders_the_verify_command_with_the_items(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("model: {name: m}", "model: {name: gemini-2.5-flash}"))
    checked = check_recipe(recipe, ["files=a b.py", "files=c.py"], live=False)
    verify = checked.plans[0].verify
    assert verify is not None and verify.command == "ruff check 'a b.py' c.py"
