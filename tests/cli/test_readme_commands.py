"""The README's command table lists every command, and every flag of ``run`` and ``batch``.

A flag counts as listed when its row names it (its long name, or its short one); the table
is the only place many users look for what ``agentci run`` takes.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from agentci.cli import COMMANDS, cli

README = Path(__file__).resolve().parents[2] / "README.md"


def _rows() -> dict[str, str]:
    """The command table's rows, by their first cell (``agentci run RECIPE …``)."""
    text = README.read_text()
    table = text[text.index("## Commands") :]
    table = table[: table.index("\n\n", table.index("| command |"))]
    rows = {}
    for line in table.splitlines()[2:]:
        first, rest = line.strip("|").split("|", 1)
        rows[first.strip().strip("`")] = rest
    return rows


def test_every_command_has_a_row():
    commands = {" ".join(row.split()[:2]) for row in _rows()}
    for name in COMMANDS:
        assert f"agentci {name}" in commands, name


@pytest.mark.parametrize("name", ["run", "batch"])
def test_every_flag_of_the_command_is_in_its_row(name: str):
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    row = next(f"{first} {rest}" for first, rest in _rows().items()
               if first.startswith(f"agentci {name} "))  # fmt: skip
    missing = []
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden or "--help" in param.opts:
            continue
        if not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", row) for o in param.opts):
            missing.append(param.opts[-1])
    assert missing == []
