"""The command line's prompt is text, never a template; the built-in recipe's defaults."""

from __future__ import annotations

import pytest

from agentci.errors import InvalidInput
from agentci.recipe.load import builtin_recipe, parse_recipe
from agentci.recipe.prompt_recipe import RecipeFields, literal_template
from agentci.recipe.render import render


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "{{ x }} and {% if y %}",
        "a {% endraw %} b {%- endraw -%} c {%endraw%}",
        "{# comment #} {% raw %}",
    ],
)
def test_a_prompt_from_the_command_line_renders_to_itself(text: str):
    assert render(literal_template(text), {}, where="prompt") == text


def test_the_built_in_recipe_is_read_only_and_allows_no_changes():
    recipe = builtin_recipe(RecipeFields(prompt="Explain x."))
    assert recipe.policy.mode == "read_only" and recipe.allow_no_changes
    assert recipe.model.name == "gemini-2.5-flash" and recipe.verify is None
    edit = builtin_recipe(RecipeFields(prompt="Fix x.", mode="auto_edit", verify="make check"))
    assert edit.policy.mode == "auto_edit" and not edit.allow_no_changes
    assert edit.verify is not None and not edit.verify.baseline


def test_model_flag_drops_the_recipes_price_of_the_other_model():
    text = (
        "version: 1\nname: r\nprompt: p\n"
        "model: {name: gemini-2.5-flash, temperature: 0.1, "
        "pricing: {input_per_mtok: 1, output_per_mtok: 2}}\n"
    )
    recipe = parse_recipe(text, fields=RecipeFields(model="gemini-2.5-pro"))
    assert (recipe.model.name, recipe.model.temperature, recipe.model.pricing) == (
        "gemini-2.5-pro",
        0.1,
        None,
    )


def test_prompt_flag_refuses_a_recipe_with_tasks():
    text = "version: 1\nname: r\nmodel: {name: m}\ntasks: [{name: a, prompt: A}]\n"
    with pytest.raises(InvalidInput, match="this recipe has tasks"):
        parse_recipe(text, fields=RecipeFields(prompt="X"))
