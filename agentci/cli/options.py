"""Option bundles shared by several commands (simonw/llm style decorators)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from agentci.recipe.extra_outputs import EXTRA_OUTPUTS

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


def budget_options(timeout_help: str = "Override budget.max_wall_seconds.") -> Callable[[F], F]:
    """``--max-turns``, ``--max-cost`` and ``--timeout``: the command gets the ones given as
    one ``budget`` dict of ``budget`` fields (the plan puts them on top of every task's
    budget, agentci/run/plan.py)."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(
            *args: Any,
            max_turns: int | None,
            max_cost: float | None,
            timeout: float | None,
            **kwargs: Any,
        ) -> Any:
            given = {"max_turns": max_turns, "max_cost_usd": max_cost, "max_wall_seconds": timeout}
            budget = {key: value for key, value in given.items() if value is not None}
            return func(*args, budget=budget, **kwargs)

        options = [
            click.option(
                "--max-turns", type=click.IntRange(min=1), help="Override budget.max_turns."
            ),
            click.option(
                "--max-cost",
                type=click.FloatRange(min=0, min_open=True),
                help="Override budget.max_cost_usd.",
            ),
            click.option(
                "--timeout", type=click.FloatRange(min=0, min_open=True), help=timeout_help
            ),
        ]
        decorated: Any = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        return cast(F, decorated)

    return decorate


class _UserError(click.ClickException):
    exit_code = 2


def fail(message: str) -> click.ClickException:
    """A user error: one clear line on stderr, exit 2, never a traceback."""
    return _UserError(message)


def resume_options(resume_help: str) -> Callable[[F], F]:
    """``--resume OUT`` and ``--resume-force``: go on from an earlier run's outputs
    (docs/resume.md)."""

    def decorate(func: F) -> F:
        func = click.option(
            "--resume-force",
            is_flag=True,
            help="With --resume: go on even when the model, tools or workspace changed since.",
        )(func)
        return click.option(
            "--resume",
            type=click.Path(path_type=Path, file_okay=False),
            metavar="OUT",
            help=resume_help,
        )(func)

    return decorate


def _extra_outputs(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if names == ["none"]:
        return frozenset()
    unknown = [n for n in names if n not in EXTRA_OUTPUTS]
    if unknown or not names:
        raise click.BadParameter(
            f"{', '.join(unknown) or repr(value)}: give report.html, sarif.json (comma-separated) "
            "or none"
        )
    return frozenset(names)


def outputs_option(func: F) -> F:
    """``--outputs LIST``: the optional outputs to write (over the recipe's ``outputs.extra``),
    as a frozenset, or None when not given."""
    return click.option(
        "--outputs",
        "extra_outputs",
        metavar="LIST",
        callback=_extra_outputs,
        help="The optional outputs to write, comma-separated: report.html, sarif.json, or none "
        "(replaces the recipe's outputs.extra; events.jsonl, patch.diff, junit.xml, "
        "result.json and summary.md are always written).",
    )(func)
