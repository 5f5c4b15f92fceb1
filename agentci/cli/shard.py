"""``agentci run RECIPE --shard ID``: one shard of a recipe, laid out as a batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

from agentci.batch.launch import BatchOptions, launch_batch
from agentci.cli.options import fail


def run_shard(
    recipe: Path,
    shard: str,
    params: tuple[str, ...],
    out_dir: Path | None,
    workspace: Path | None,
    output_format: str,
    record: Path | None,
    overrides: dict[str, Any],
    *,
    skip_if_proposed: bool,
    resume: Path | None = None,
    resume_force: bool = False,
    verbose: bool,
    quiet: bool,
    otel: bool = False,
    extra_outputs: frozenset[str] | None = None,
) -> NoReturn:
    """Run the tasks of shard ``shard`` one after another, as ``agentci batch --jobs 1`` over
    them would (each task's outputs in <out>/<recipe>/<task>/, merged files in <out>)."""
    unsupported = [
        flag
        for flag, given in (
            ("--workspace", workspace is not None),
            ("--format jsonl", output_format != "text"),
            ("--record", record is not None),
        )
        if given
    ]
    if unsupported:
        raise fail(f"--shard does not go with {', '.join(unsupported)}")
    raise SystemExit(
        launch_batch(
            BatchOptions(
                recipes=[recipe],
                params=list(params),
                out_dir=out_dir,
                shard=shard,
                skip_if_proposed=skip_if_proposed,
                budget_overrides=overrides,
                resume=resume,
                resume_force=resume_force,
                extra_outputs=extra_outputs,
                verbose=verbose,
                quiet=quiet,
                otel=otel,
            )
        )
    )
