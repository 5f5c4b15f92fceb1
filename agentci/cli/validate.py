"""``agentci validate``: check recipes without running anything."""

from __future__ import annotations

import click

from agentci.cli.options import fail, parameter_options


@click.command(name="validate")
@click.argument("recipes", nargs=-1, required=True, type=click.Path(dir_okay=False))
@parameter_options
def validate_command(recipes: tuple[str, ...], params: tuple[str, ...]) -> None:
    """Check RECIPES: schema, parameters and templates. Exit 2 on the first error.

    Nothing is sent to a model and nothing is run.
    """
    from pathlib import Path

    from agentci.errors import InvalidInput
    from agentci.loop.plan import plan_tasks
    from agentci.recipe.load import load_recipe
    from agentci.recipe.render import parse_assignments, resolve_parameters
    from agentci.verify.template import placeholder as verify_placeholder

    errors = 0
    for path in recipes:
        try:
            recipe = load_recipe(path)
            values = resolve_parameters(recipe, parse_assignments(list(params)))
            for plan in plan_tasks(recipe, values, Path(recipe.outputs.dir)):
                command = plan.verify.command if plan.verify else ""
                plan.render_prompt({"verify": verify_placeholder(command)})
        except InvalidInput as err:
            click.echo(f"agentci: {err}", err=True)
            errors += 1
            continue
        click.echo(f"{path}: ok ({recipe.name})")
    if errors:
        raise fail(f"{errors} of {len(recipes)} recipe(s) invalid")
