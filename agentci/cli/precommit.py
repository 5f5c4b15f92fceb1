"""``agentci pre-commit``: a recipe as a pre-commit hook (docs/pre-commit.md)."""

from __future__ import annotations

from pathlib import Path

import click

from agentci.cli.options import parameter_options


@click.command(name="pre-commit")
@click.argument("files", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "-r",
    "--recipe",
    default=".agentci/pre-commit.yaml",
    show_default=True,
    metavar="PATH|NAME",
    help="The recipe: a file, or the name of one that comes with agentci (fix-lint).",
)
@click.option(
    "--files-param",
    default="files",
    show_default=True,
    help="The recipe's list parameter that receives FILES.",
)
@parameter_options
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(".agentci/pre-commit-out"),
    show_default=True,
    help="Output folder.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Override budget.max_wall_seconds (default: the recipe's, else 300).",
)
@click.option(
    "--max-cost", type=click.FloatRange(min=0, min_open=True), help="Override budget.max_cost_usd."
)
@click.option("-v", "--verbose", is_flag=True, help="Show turns, thoughts and allowed calls.")
@click.option("-q", "--quiet", is_flag=True, help="Only a failure prints one line.")
def pre_commit_command(
    files: tuple[str, ...],
    recipe: str,
    files_param: str,
    params: tuple[str, ...],
    out_dir: Path,
    timeout: float | None,
    max_cost: float | None,
    verbose: bool,
    quiet: bool,
) -> None:
    """Run a recipe on FILES (the files being committed) and change nothing else.

    Exit codes: 0 nothing to fix, 1 files were changed (git add them and commit again) or could
    not be fixed, 2 invalid input, 3 budget exhausted, 4 loop detected, 5 blocked, 6 provider
    error, 70 internal error.
    """
    from agentci.precommit.hook import HookOptions, run_hook

    code = run_hook(
        HookOptions(
            recipe=recipe,
            files=list(files),
            files_param=files_param,
            params=list(params),
            out_dir=out_dir,
            timeout=timeout,
            max_cost=max_cost,
            verbose=verbose,
            quiet=quiet,
        )
    )
    raise SystemExit(code)
