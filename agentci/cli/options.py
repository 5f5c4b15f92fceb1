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


def budget_overrides(
    *, max_turns: int | None, max_cost: float | None, timeout: float | None
) -> dict[str, float]:
    """The ``budget`` fields that ``--max-turns``, ``--max-cost`` and ``--timeout`` set (the
    options given; the recipe's values stand for the others)."""
    given = {"max_turns": max_turns, "max_cost_usd": max_cost, "max_wall_seconds": timeout}
    return {key: value for key, value in given.items() if value is not None}


class _UserError(click.ClickException):
    exit_code = 2


def fail(message: str) -> click.ClickException:
    """A user error: one clear line on stderr, exit 2, never a traceback."""
    return _UserError(message)
