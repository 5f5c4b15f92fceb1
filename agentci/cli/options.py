"""Option bundles shared by several commands (simonw/llm style decorators)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def parameter_options(func: F) -> F:
    """``-p/--param name=value`` (repeatable): the recipe's template parameters."""
    return click.option(
        "-p",
        "--param",
        "params",
        multiple=True,
        metavar="NAME=VALUE",
        help="Set a recipe parameter (repeatable).",
    )(func)


class _UserError(click.ClickException):
    exit_code = 2


def fail(message: str) -> click.ClickException:
    """A user error: one clear line on stderr, exit 2, never a traceback."""
    return _UserError(message)
