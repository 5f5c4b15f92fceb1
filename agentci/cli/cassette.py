"""``agentci cassette``: recorded model sessions (the files ``model.name: replay:FILE`` plays)."""

from __future__ import annotations

from pathlib import Path

import click

from agentci.cli.options import fail
from agentci.errors import InvalidInput
from agentci.providers.cassette import convert


@click.group(name="cassette")
def cassette_group() -> None:
    """Recorded model sessions: the cassettes `agentci run --record FILE` writes and a
    recipe's `model.name: replay:FILE` plays back (docs/offline-models.md)."""


@cassette_group.command(name="convert")
@click.argument("source", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("target", type=click.Path(path_type=Path, dir_okay=False))
def convert_command(source: Path, target: Path) -> None:
    """Rewrite the cassette SOURCE as TARGET in the current format (2: agentci's own chunks,
    replayed without any SDK). SOURCE may be an older Gemini-format cassette (format 1, its
    chunks as Gemini's REST API sent them); its comments and expectations are kept. TARGET may
    be SOURCE itself."""
    try:
        calls = convert(source, target)
    except InvalidInput as err:
        raise fail(str(err)) from None
    except OSError as err:
        raise fail(f"{target}: cannot write: {err.strerror or err}") from None
    click.echo(f"agentci: {target}: {calls} model call(s), cassette format 2", err=True)
