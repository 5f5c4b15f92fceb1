"""``agentci init``: set a repository up for agentci, asking nothing."""

from __future__ import annotations

import re
from pathlib import Path

import click

from agentci.cli.options import fail
from agentci.init.scaffold import AlreadyThere, InitChoices, UnsafeTarget, write_init
from agentci.init.starters import STARTERS
from agentci.init.workflow import DEFAULT_ACTION

KINDS = ("fix-tests", "fix-lint", "type-errors")
_ACTION = re.compile(r"^(?:\./[\w./-]+|[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[\w./-]+)$")


@click.command(name="init")
@click.argument(
    "directory", default=".", type=click.Path(path_type=Path, file_okay=False, exists=True)
)
@click.option(
    "--recipe",
    "kind",
    type=click.Choice(KINDS),
    default="fix-tests",
    show_default=True,
    help="The job: fix failing tests, fix ruff findings, or fix mypy errors.",
)
@click.option("--verify", help="The verify command (default: the job's usual one).")
@click.option("--model", default="gemini-2.5-flash", show_default=True, help="model.name.")
@click.option("--setup", help="The workflow's setup command (installs the project's tools).")
@click.option(
    "--action",
    default=None,
    help="The Action to use, OWNER/REPO@REF (default: OWNER/agentci@v0, to edit).",
)
@click.option("--no-workflow", is_flag=True, help="Write the recipe and .gitignore line only.")
@click.option("--force", is_flag=True, help="Overwrite a recipe or workflow that exists.")
def init_command(
    directory: Path,
    kind: str,
    verify: str | None,
    model: str,
    setup: str | None,
    action: str | None,
    no_workflow: bool,
    force: bool,
) -> None:
    """Write into DIRECTORY (default: here) a starter recipe (.github/agentci/KIND.yaml), a
    GitHub workflow that runs it with the agentci Action (.github/workflows/agentci-KIND.yml)
    and the .gitignore line for agentci's outputs. Asks nothing; an existing recipe or
    workflow is never overwritten without --force (and then nothing is written at all)."""
    for name, value in (("--verify", verify), ("--setup", setup), ("--model", model)):
        if value is not None and (not value.strip() or "\n" in value):
            raise fail(f"{name} must be one non-empty line")
    if action is not None and not _ACTION.match(action):
        raise fail(f"--action {action!r}: expected OWNER/REPO@REF or ./PATH")
    choices = InitChoices(
        starter=STARTERS[kind],
        model=model,
        verify=verify,
        setup=setup,
        action=action or DEFAULT_ACTION,
        workflow=not no_workflow,
    )
    try:
        done = write_init(directory, choices, force=force)
    except AlreadyThere as err:
        raise fail(f"{', '.join(err.paths)} already exist(s); --force overwrites") from None
    except UnsafeTarget as err:
        raise fail(f"{directory}: {err}; nothing was written") from None
    except OSError as err:
        raise fail(f"{directory}: cannot write: {err.strerror or err}") from None
    for line in done:
        click.echo(f"agentci init: {line}")
    recipe = f".github/agentci/{kind}.yaml"
    click.echo(f"Next: agentci validate {recipe} && agentci run {recipe}")
    if not no_workflow:
        click.echo("Then set the GEMINI_API_KEY secret of the repository on GitHub.")
        if action is None:
            click.echo(f"The workflow uses {DEFAULT_ACTION}: point it at your copy of agentci.")
