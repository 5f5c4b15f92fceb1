"""``agentci run``: run a recipe headlessly."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentci.cli.options import (
    budget_options,
    fail,
    outputs_option,
    parameter_options,
    resume_options,
)
from agentci.errors import InvalidInput
from agentci.recipe.prompt_recipe import (
    RecipeFields,
    piped_input,
    read_prompt,
    with_piped_input,
)
from agentci.run.launch import LaunchOptions, launch


@click.command(name="run")
@click.argument("recipe", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option(
    "--prompt",
    metavar="TEXT",
    help="The prompt ('-': read it from stdin); replaces the recipe's prompt, or runs the "
    "built-in recipe when no RECIPE is given (docs/prompts.md).",
)
@click.option("--model", metavar="NAME", help="Override model.name (its pricing is dropped).")
@click.option(
    "--mode",
    type=click.Choice(["read_only", "auto_edit", "yolo"]),
    help="Override policy.mode (the built-in recipe: read_only).",
)
@click.option(
    "--verify",
    "verify_command",
    metavar="CMD",
    help="Override verify.command; the model may run CMD too (an allow rule).",
)
@click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="CMD",
    help="Let the model run CMD, with any arguments (a run_shell_command allow rule; repeatable).",
)
@click.option(
    "--output-schema",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A JSON Schema file (JSON or YAML) for a structured answer: output.schema.",
)
@parameter_options
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Output folder (default: the recipe's outputs.dir, .agentci/out).",
)
@click.option(
    "-w",
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    help="Work on this folder instead of the recipe's workspace.path.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl"]),
    default="text",
    show_default=True,
    help="jsonl: also stream the events to stdout.",
)
@click.option(
    "--record",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write a cassette of the model's answers, for replay:FILE.",
)
@budget_options()
@click.option(
    "--shard",
    metavar="ID",
    help="Run only this shard of the recipe's tasks (K/N or a task's name, from `agentci "
    "matrix`); the outputs are laid out as `agentci batch` writes them.",
)
@click.option(
    "--skip-if-proposed",
    is_flag=True,
    help="Do not run a task whose change from this HEAD is already on a branch "
    "(outputs.branch): it ends no_changes, already_proposed, without a model call.",
)
@resume_options(
    "Go on from the earlier run whose outputs are in OUT: tasks stopped by a budget, "
    "timeout, signal or unavailable model continue from their last complete turn with fresh "
    "budgets; success and verify_failed tasks are kept (docs/resume.md)."
)
@outputs_option
@click.option("-v", "--verbose", is_flag=True, help="Show turns, thoughts and allowed calls.")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No console view; only a failure prints one line (outputs are still written).",
)
@click.option(
    "--otel",
    is_flag=True,
    help="Export OpenTelemetry spans of the run (on by itself when OTEL_EXPORTER_OTLP_ENDPOINT "
    "is set; needs pip install 'agentci-runner[otel]').",
)
def run_command(
    recipe: Path | None,
    prompt: str | None,
    model: str | None,
    mode: str | None,
    verify_command: str | None,
    allow: tuple[str, ...],
    output_schema: Path | None,
    params: tuple[str, ...],
    out_dir: Path | None,
    workspace: Path | None,
    output_format: str,
    record: Path | None,
    budget: dict[str, float],
    shard: str | None,
    skip_if_proposed: bool,
    resume: Path | None,
    resume_force: bool,
    extra_outputs: frozenset[str] | None,
    verbose: bool,
    quiet: bool,
    otel: bool,
) -> None:
    """Run RECIPE (or the built-in recipe with --prompt): the agent loop, verify, and the
    outputs (events.jsonl, patch.diff, junit.xml, result.json, summary.md, report.html,
    history.jsonl, and sarif.json and output.json when there is something to put in them). The
    exit code tells how it ended (agentci --help lists them)."""

    if recipe is None and prompt is None:
        raise fail("give a RECIPE file, or a prompt with --prompt TEXT (--prompt - reads stdin)")
    text = None
    if prompt is not None:
        try:
            text = read_prompt(prompt, sys.stdin)
        except InvalidInput as err:
            raise fail(str(err)) from None
        if prompt != "-":
            text = with_piped_input(text, piped_input(sys.stdin))
    fields = RecipeFields(
        prompt=text,
        model=model,
        mode=mode,
        verify=verify_command,
        output_schema=output_schema,
        allow=list(allow) or None,
    )

    if resume_force and resume is None:
        raise fail("--resume-force goes with --resume OUT")
    if shard is not None:
        if recipe is None or fields:
            raise fail("--shard runs a shard of a RECIPE as it is: without --prompt and the flags")
        # a plain run, the common case, never loads the batch machinery (runner, selection, rich)
        # deferred: only --shard needs agentci.batch
        from agentci.cli.shard import run_shard

        run_shard(recipe, shard, params, out_dir, workspace, output_format, record, budget,
                  skip_if_proposed=skip_if_proposed, resume=resume, resume_force=resume_force,
                  verbose=verbose, quiet=quiet, otel=otel,
                  extra_outputs=extra_outputs)  # fmt: skip
    code = launch(
        LaunchOptions(
            recipe=recipe,
            params=list(params),
            out_dir=out_dir,
            workspace=workspace,
            output_format=output_format,  # type: ignore[arg-type]
            record=record,
            budget_overrides=budget,
            verbose=verbose,
            quiet=quiet,
            otel=otel,
            skip_if_proposed=skip_if_proposed,
            resume=resume,
            resume_force=resume_force,
            fields=fields,
            answer_to_stdout=prompt is not None,
            optional=extra_outputs,
        )
    )
    raise SystemExit(code)
