"""``agentci validate``: check recipes without running anything."""

from __future__ import annotations

from pathlib import Path

import click

from agentci.cli.options import fail, parameter_options
from agentci.errors import InvalidInput
from agentci.run.preflight import check_recipe


@click.command(name="validate")
@click.argument("recipes", nargs=-1, required=True, type=click.Path(dir_okay=False))
@parameter_options
def validate_command(recipes: tuple[str, ...], params: tuple[str, ...]) -> None:
    """Check RECIPES the way `agentci run` does before its first model call, without running
    anything, sending anything or needing an API key.

    \b
    Checked: the schema (unknown keys, with a "did you mean"; wrong types and values),
    parameters (-p values, and parameters without a default that need one), every template
    (an undefined name, with the parameter it looks like), the model names (a Gemini model,
    replay:FILE or scripted:FILE; a misspelt one, with the model meant), that scripted:/replay:
    files exist and parse, that each policy rule names an existing tool, and that hook
    scripts exist.

    Every error is listed as FILE:LINE: KEY: MESSAGE. Exit 0 when all recipes are valid,
    2 otherwise.
    """
    invalid = 0
    for path in recipes:
        try:
            checked = check_recipe(Path(path), list(params), live=False)
        except InvalidInput as err:
            for line in str(err).splitlines():
                click.echo(f"agentci: {line}", err=True)
            invalid += 1
            continue
        click.echo(f"{path}: ok ({checked.recipe.name})")
    if invalid:
        raise fail(f"{invalid} of {len(recipes)} recipe(s) invalid")
