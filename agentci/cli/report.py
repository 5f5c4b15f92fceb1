"""``agentci report merge``: one report from the outputs of many shards."""

from __future__ import annotations

from pathlib import Path

import click

from agentci.batch.merge import copy_task_outputs, find_task_outputs, write_merged
from agentci.cli.options import fail
from agentci.errors import InvalidInput
from agentci.reports.outdir import prepare_out_dir


def _refuse_overlap(out_dir: Path, dirs: tuple[Path, ...]) -> None:
    """--out may not be an input folder, inside one, or hold one: the output folder is
    emptied (moved to ``.prev``) before the merge."""
    out = out_dir.resolve()
    for d in dirs:
        src = d.resolve()
        if out == src or src in out.parents or out in src.parents:
            raise InvalidInput(
                f"--out {out_dir} overlaps the input folder {d}: the merged outputs go to a "
                "folder of their own (it is emptied first), not in or around an input"
            )


@click.group(name="report")
def report_group() -> None:
    """Work on the outputs of finished runs."""


@report_group.command(name="merge")
@click.argument(
    "dirs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False, exists=True)
)
@click.option(
    "-o", "--out", "out_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
    help="Where the merged outputs go.",
)  # fmt: skip
def merge_command(dirs: tuple[Path, ...], out_dir: Path) -> None:
    """Merge the outputs of `agentci run --shard` (or `agentci batch`, or one-task runs) in
    DIRS into OUT: each task's folder copied to OUT/<recipe>/<task>/, and one junit.xml,
    result.json and summary.md — the files one `agentci batch` over the same tasks writes.
    The exit code is the merged result's (the worst task's)."""
    try:
        _refuse_overlap(out_dir, dirs)
        tasks = find_task_outputs(list(dirs))
        out = prepare_out_dir(out_dir)
    except InvalidInput as err:
        raise fail(str(err)) from None
    skipped: list[str] = []
    result = write_merged(out, copy_task_outputs(tasks, out, skipped))
    for line in skipped:
        click.echo(f"agentci: warning: not copied: {line}", err=True)
    click.echo(
        f"agentci: merged {len(tasks)} tasks into {out}: {result['status']} "
        f"(exit {result['exit_code']})",
        err=True,
    )
    raise SystemExit(int(result["exit_code"]))
