"""``agentci matrix``: the shards of some recipes, as a GitHub Actions matrix."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agentci.batch.select import load_tasks, matrix
from agentci.cli.options import fail, parameter_options
from agentci.errors import InvalidInput


@click.command(name="matrix")
@click.argument("recipes", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@parameter_options
@click.option(
    "--shards",
    type=click.IntRange(min=1, max=256),
    help="Split each recipe's tasks round-robin into at most N shards (IDs K/N).",
)
@click.option("--per-task", is_flag=True, help="One shard per task, named after it (the default).")
def matrix_command(
    recipes: tuple[Path, ...], params: tuple[str, ...], shards: int | None, per_task: bool
) -> None:
    """Print a GitHub Actions matrix for RECIPES (JSON, for `fromJSON`): {"include": [...]},
    one entry per shard with `recipe`, `shard`, `tasks`, `params` and a `name`. Run an entry
    with `agentci run RECIPE --shard SHARD`, then merge the outputs with `agentci report
    merge`. Checks the recipes like `agentci validate`; needs no API key."""
    if shards is not None and per_task:
        raise fail("--shards and --per-task exclude each other")
    try:
        tasks = load_tasks(list(recipes), list(params), live=False)
    except InvalidInput as err:
        raise fail(str(err)) from None
    click.echo(json.dumps(matrix(tasks, shards=shards), separators=(",", ":")))
