"""``agentci pre-commit``: a recipe as a pre-commit hook (docs/pre-commit.md)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from agentci.cli.options import parameter_options
from agentci.precommit.quick import clean_exit

#: What to do instead, in every refusal below.
_USE_SEPARATOR = (
    "options go before `--`, the files after it: agentci pre-commit [OPTIONS] -- FILES… (the "
    "hooks' entries end in `--`; to choose the recipe, set the hook's entry: "
    "`entry: agentci pre-commit --recipe PATH --`)"
)


class FilesLastCommand(click.Command):
    """A command whose file names can never be options.

    pre-commit appends the staged files' names to the hook's entry; a repository can name a
    file ``--recipe=evil.py`` or ``--out=/elsewhere/x.py``. Options end at ``--`` or at the first
    file (``allow_interspersed_args`` off), and without ``--`` an argument that looks like an
    option and is the name of an existing file is refused: agentci cannot tell which it is."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            if arg == "--":
                break
            if arg.startswith("-") and arg != "-" and os.path.lexists(arg):
                raise click.UsageError(
                    f"{arg!r} is a file's name and looks like an option; {_USE_SEPARATOR}", ctx
                )
        return super().parse_args(ctx, args)


@click.command(
    name="pre-commit",
    cls=FilesLastCommand,
    context_settings={"allow_interspersed_args": False},
)
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

    Options go before FILES; put `--` before FILES when a name may start with `-` (the
    pre-commit hooks' entries end in `--`). `--recipe fix-lint` is always the built-in recipe;
    name a file of that name `./fix-lint`.

    Exit codes: 0 nothing to fix, 1 files were changed (git add them and commit again) or could
    not be fixed, 2 invalid input, 3 budget exhausted, 4 loop detected, 5 blocked, 6 provider
    error, 70 internal error, 75 provider unavailable (quota or outage: commit again later).
    """
    for name in files:
        if name.startswith("-") and not os.path.lexists(name):
            raise click.UsageError(f"{name!r} is not a file; {_USE_SEPARATOR}")
    code = clean_exit(
        recipe,
        list(files),
        files_param=files_param,
        params=list(params),
        out_dir=out_dir,
        verbose=verbose,
        quiet=quiet,
        timeout=timeout,
    )
    if code is not None:  # the linter found nothing: no run needed (agentci.precommit.quick)
        raise SystemExit(code)
    # deferred: the run's machinery loads only when the files need the model or a check
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
