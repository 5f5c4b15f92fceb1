"""``agentci batch``: every task of several recipes, N at a time."""

from __future__ import annotations

from pathlib import Path

import click

from agentci.batch.launch import BatchOptions, launch_batch
from agentci.cli.options import (
    budget_options,
    fail,
    outputs_option,
    parameter_options,
    resume_options,
)


@click.command(name="batch")
@click.argument("recipes", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@parameter_options
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True,
    help="How many tasks run at the same time.",
)  # fmt: skip
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Output folder (default: the first recipe's outputs.dir); each task's outputs go "
    "in <out>/<recipe>/<task>/.",
)
@click.option(
    "--fail-fast", is_flag=True, help="After a task fails, start no other (running ones finish)."
)
@click.option(
    "--skip-if-proposed",
    is_flag=True,
    help="Do not run a task whose change from this HEAD is already on a branch "
    "(outputs.branch): it ends no_changes, already_proposed, without a model call.",
)
@budget_options("Override budget.max_wall_seconds (per task).")
@resume_options(
    "Go on from the earlier batch whose outputs are in OUT: only the tasks stopped by a "
    "budget, timeout, signal or unavailable model run, from their last complete turn "
    "(docs/resume.md)."
)
@outputs_option
@click.option("-v", "--verbose", is_flag=True, help="Show turns, thoughts and allowed calls.")
@click.option("-q", "--quiet", is_flag=True, help="No console view; a failure prints one line.")
@click.option(
    "--otel",
    is_flag=True,
    help="Export OpenTelemetry spans: one run span, a task span per task (on by itself when "
    "OTEL_EXPORTER_OTLP_ENDPOINT is set; needs pip install 'agentci-runner[otel]').",
)
def batch_command(
    recipes: tuple[Path, ...],
    params: tuple[str, ...],
    jobs: int,
    out_dir: Path | None,
    fail_fast: bool,
    skip_if_proposed: bool,
    budget: dict[str, float],
    resume: Path | None,
    resume_force: bool,
    extra_outputs: frozenset[str] | None,
    verbose: bool,
    quiet: bool,
    otel: bool,
) -> None:
    """Run every task of every RECIPE, --jobs at a time, each in its own workspace (tasks that
    share one get their own git worktree). Writes each task's outputs in <out>/<recipe>/<task>/
    and merged junit.xml, result.json and summary.md in <out>. The exit code is the worst
    task's."""
    if resume_force and resume is None:
        raise fail("--resume-force goes with --resume OUT")
    raise SystemExit(
        launch_batch(
            BatchOptions(
                recipes=list(recipes),
                params=list(params),
                out_dir=out_dir,
                jobs=jobs,
                fail_fast=fail_fast,
                skip_if_proposed=skip_if_proposed,
                budget_overrides=budget,
                resume=resume,
                resume_force=resume_force,
                extra_outputs=extra_outputs,
                verbose=verbose,
                quiet=quiet,
                otel=otel,
            )
        )
    )
