"""``agentci schema``: print the recipe JSON Schema."""

from __future__ import annotations

import json

import click

from agentci.recipe.schema import json_schema


@click.command(name="schema")
def schema_command() -> None:
    """Print the JSON Schema of recipes (for editors and SchemaStore)."""
    click.echo(json.dumps(json_schema(), indent=2))
