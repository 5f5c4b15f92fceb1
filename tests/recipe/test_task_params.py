"""Tasks inherit the recipe's ``prompt`` and may set their own ``params``, so one recipe fans
out over folders (README: "each may override prompt")."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.errors import RecipeError
from agentci.run.plan import render_prompt
from agentci.run.preflight import check_recipe

FAN_OUT = """\
version: 1
name: fan-out
model: {name: gemini-2.5-flash}
parameters:
  folder: {description: the folder to fix}
  strict: {type: boolean, default: false}
prompt: "Fix the tests in {{ folder }} (strict: {{ strict }})."
verify: {command: "python -m pytest -q {{ folder }}"}
tasks:
  - {name: api, params: {folder: src/api}}
  - {name: cli, params: {folder: src/cli, strict: true}}
  - {name: docs, params: {folder: docs}, prompt: "Fix the doctests in {{ folder }}."}
"""


def _check(tmp_path: Path, text: str, *params: str):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(text)
    return recipe, check_recipe(recipe, list(params), live=False)


def test_each_task_renders_the_recipes_prompt_and_verify_with_its_own_params(tmp_path: Path):
    _, checked = _check(tmp_path, FAN_OUT)
    plans = {p.name: p for p in checked.plans}
    assert render_prompt(plans["api"]) == "Fix the tests in src/api (strict: False)."
    assert render_prompt(plans["cli"]) == "Fix the tests in src/cli (strict: True)."
    assert render_prompt(plans["docs"]) == "Fix the doctests in docs."
    assert [p.verify.command for p in checked.plans] == [
        "python -m pytest -q src/api",
        "python -m pytest -q src/cli",
        "python -m pytest -q docs",
    ]


def test_a_tasks_params_win_over_the_command_line(tmp_path: Path):
    _, checked = _check(tmp_path, FAN_OUT, "strict=true", "folder=x")
    assert [p.values["strict"] for p in checked.plans] == [True, True, True]
    assert [p.values["folder"] for p in checked.plans] == ["src/api", "src/cli", "docs"]


def test_a_task_without_a_prompt_when_the_recipe_has_none_is_an_error(tmp_path: Path):
    text = FAN_OUT.replace('prompt: "Fix the tests in {{ folder }} (strict: {{ strict }})."\n', "")
    with pytest.raises(RecipeError) as err:
        _check(tmp_path, text)
    recipe = tmp_path / "r.yaml"
    assert str(err.value).splitlines() == [
        f"{recipe}:9: tasks.0: task 'api' has no prompt, and the recipe has none to inherit",
        f"{recipe}:10: tasks.1: task 'cli' has no prompt, and the recipe has none to inherit",
    ]  # docs has its own


def test_an_unknown_parameter_of_a_task_is_named_at_its_line(tmp_path: Path):
    text = FAN_OUT.replace("params: {folder: src/cli, strict: true}", "params: {foldr: src/cli}")
    with pytest.raises(RecipeError) as err:
        _check(tmp_path, text)
    recipe = tmp_path / "r.yaml"
    assert str(err.value).splitlines() == [
        f"{recipe}:5: parameters.folder: has no default: pass -p folder=VALUE (or set it in the "
        "params of task 'cli')",
        f"{recipe}:11: tasks.1.params.foldr: unknown parameter 'foldr' (this recipe takes: "
        "folder, strict)",
    ]


def test_a_parameter_without_a_default_that_a_task_does_not_set_is_an_error(tmp_path: Path):
    text = FAN_OUT.replace("{name: api, params: {folder: src/api}}", "{name: api}")
    with pytest.raises(RecipeError) as err:
        _check(tmp_path, text)
    assert str(err.value) == (
        f"{tmp_path / 'r.yaml'}:5: parameters.folder: has no default: pass -p folder=VALUE "
        "(or set it in the params of task 'api')"
    )


def test_the_readmes_reference_recipe_fans_its_tasks_out_with_params(tmp_path: Path):
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    start = readme.index("```yaml\nversion: 1\nname: fix-failing-tests\n") + len("```yaml\n")
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/check-cmd.sh").write_text("#!/bin/sh\n")
    (tmp_path / "ci/require-test.sh").write_text("#!/bin/sh\n")
    (tmp_path / "answer.schema.json").write_text('{"type": "object"}')
    _, checked = _check(tmp_path, readme[start : readme.index("```", start)])
    assert [(p.name, render_prompt(p), p.verify.command) for p in checked.plans] == [
        ("unit", "`tests/unit` fails. Find the root cause and fix it.\n", "pytest -q tests/unit"),
        ("api", "Make tests/api pass.", "pytest -q tests/api"),
    ]
