"""The ``hooks`` recipe key, and ``run_process``'s stdin bytes that hooks read."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentci.errors import RecipeError
from agentci.process import run_process
from agentci.recipe.load import load_recipe, parse_recipe
from agentci.recipe.schema import json_schema

RECIPE = """\
version: 1
name: demo
model: {name: scripted:replies.yaml}
prompt: Fix it.
hooks:
  before_tool: [{matcher: run_shell_command, command: ./ci/check-cmd.sh, timeout_seconds: 30}]
"""


def test_the_design_example_parses_with_the_defaults():
    recipe = parse_recipe(RECIPE + "  after_tool:\n    - {matcher: '*', command: ./fmt.sh}\n")
    (before,) = recipe.hooks.before_tool
    assert (before.matcher, before.command, before.timeout_seconds) == (
        "run_shell_command",
        "./ci/check-cmd.sh",
        30,
    )
    assert recipe.hooks.after_tool[0].timeout_seconds == 30
    assert parse_recipe(RECIPE.split("hooks:")[0]).hooks.before_tool == []
    assert "hooks" in json_schema()["properties"]


@pytest.mark.parametrize(
    ("hook", "key"),
    [
        ("{matcher: '(', command: x}", "hooks.before_tool.0.matcher"),
        ("{matcher: x, command: x, timeout_seconds: 0}", "hooks.before_tool.0.timeout_seconds"),
        ("{matcher: x, command: x, when: always}", "hooks.before_tool.0.when"),
        ("{matcher: x}", "hooks.before_tool.0.command"),
    ],
    ids=["bad-regex", "zero-timeout", "unknown-key", "no-command"],
)
def test_wrong_hooks_name_file_line_and_key(write_recipe, hook, key):
    text = RECIPE.replace(
        "[{matcher: run_shell_command, command: ./ci/check-cmd.sh, timeout_seconds: 30}]",
        f"\n    - {hook}",
    )
    with pytest.raises(RecipeError) as err:
        load_recipe(write_recipe(text))
    assert err.value.key == key
    assert err.value.line == 7


def test_an_unknown_hook_stage_is_refused(write_recipe):
    with pytest.raises(RecipeError) as err:
        load_recipe(write_recipe(RECIPE.replace("before_tool:", "on_start:")))
    assert err.value.key == "hooks.on_start"


def run(command: str, stdin: bytes | None) -> tuple[int | None, str]:
    done = asyncio.run(
        run_process(
            command, cwd=Path.cwd(), env=dict(os.environ), timeout=10, output_cap=1000, stdin=stdin
        )
    )
    return done.exit_code, done.output


def test_stdin_bytes_reach_the_command_and_are_closed():
    assert run("wc -c", b"x" * 12345) == (0, "12345\n")
    assert run("cat", None) == (0, "")  # /dev/null as before


def test_a_command_that_ignores_a_large_stdin_does_not_hang_or_fail():
    assert run("echo done", b"y" * (4 << 20)) == (0, "done\n")
