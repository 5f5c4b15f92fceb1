"""From command-line choices to a finished run: load, plan, run, exit code.

Bad input (recipe, parameters, flags, keys) ends here with status ``invalid_input``, one
clear line on stderr and the outputs still written. Signals cancel the run cleanly; a
second signal exits at once (the event log stays valid line by line).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentci.errors import InvalidInput
from agentci.events.console import GitHubAnnotationsSink
from agentci.events.lifecycle_events import Error
from agentci.events.sinks import (
    Emitter,
    EventLines,
    JsonlSink,
    Sink,
    StreamJsonlSink,
    open_console_sink,
    tell,
    utc_now,
)
from agentci.events.stdout_product import StdoutProduct
from agentci.outcome import Status
from agentci.policy.env import hide_initial_environ, make_undumpable
from agentci.providers.registry import key_notes
from agentci.recipe.load import load_recipe
from agentci.recipe.prompt_recipe import RecipeFields, recipe_label
from agentci.reports.outdir import prepare_out_dir
from agentci.reports.redact import Redactor, neutralise_workflow_commands
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.writer import OPTIONAL_OUTPUTS
from agentci.run import early
from agentci.run.crash import crash_exit
from agentci.run.end_lines import print_answer, quiet_failure_line, replay_hint, shown_path
from agentci.run.preflight import check_recipe
from agentci.run.resume import (
    ResumePoint,
    ResumeRefused,
    check_in_place,
    load_resume,
    refuse_overwriting,
)
from agentci.run.run_end import finish_run
from agentci.run.runner import Runner, delivery_for, new_run_id
from agentci.run.secret_vars import secret_vars
from agentci.run.signal_handlers import run_with_signals
from agentci.run.task import RunSettings
from agentci.run.tracing import check_tracing, otel_sink
from agentci.spec import TaskSpec


@dataclass
class LaunchOptions:
    """What ``agentci run`` was asked to do."""

    recipe: Path | None  # None: the built-in recipe (``--prompt``)
    params: list[str] = field(default_factory=list)
    out_dir: Path | None = None
    workspace: Path | None = None
    output_format: Literal["text", "jsonl"] = "text"
    record: Path | None = None
    budget_overrides: dict[str, Any] = field(default_factory=dict)
    verbose: bool = False
    quiet: bool = False
    otel: bool = False  # OpenTelemetry spans (also on with OTEL_EXPORTER_OTLP_ENDPOINT)
    #: pre-commit: narrows every task's plan to the files being committed, after the checks
    limit_plans: Callable[[list[TaskSpec]], list[TaskSpec]] | None = None
    skip_if_proposed: bool = False
    fields: RecipeFields | None = None  # --prompt, --model, --mode, --verify, --output-schema
    answer_to_stdout: bool = False  # --prompt: the final answer on stdout, all else stderr
    resume: Path | None = None  # --resume OUT: go on from the earlier run's outputs
    resume_force: bool = False  # --resume-force: go on even where the history may not fit
    key_when_needed: bool = False  # pre-commit: a missing API key matters only once the
    # baseline verify fails and the model is needed; otherwise it is refused before anything runs
    #: report.html, sarif.json: which to write (--outputs; pre-commit: neither); None: the
    #: recipe's outputs.extra
    optional: frozenset[str] | None = None


def _sinks(
    opts: LaunchOptions,
    out_dir: Path,
    redactor: Any,
    *,
    console: bool = True,
    product: StdoutProduct | None = None,
) -> list[Sink]:
    """The event log, the console view (``console=False``: none, the error is already
    printed), events on stdout (``--format jsonl``) or GitHub annotations (in Actions)."""

    def sanitize(text: str) -> str:
        return neutralise_workflow_commands(redactor.redact(text))

    lines = EventLines(redactor.redact_json)  # one redaction per event for both JSONL sinks
    sinks: list[Sink] = [JsonlSink(out_dir / "events.jsonl", lines=lines)]
    if not opts.quiet and console:
        sinks.append(open_console_sink(sys.stderr, sanitize=sanitize, verbose=opts.verbose))
    if opts.output_format == "jsonl":
        sinks.append(StreamJsonlSink(sys.stdout, lines=lines, product=product))
    elif os.environ.get("GITHUB_ACTIONS") == "true":
        sinks.append(GitHubAnnotationsSink(sys.stdout, sanitize=sanitize))
    # OpenTelemetry spans (run/tracing.py: without the extra, --otel was refused already)
    otel = otel_sink(redactor.redact, flag=opts.otel, warn=console)
    if otel is not None:
        sinks.append(otel)
    return sinks


def launch(opts: LaunchOptions) -> int:
    """Run the recipe; return the process exit code (70 when a bug escapes, see run.crash)."""
    early.remember()  # a signal from now on: the run starts cancelled, with its outputs
    try:
        return _launch(opts)
    except Exception as err:  # noqa: BLE001 - the exit code must still tell the truth
        return crash_exit(err)


def _launch(opts: LaunchOptions) -> int:
    make_undumpable()  # a same-user child cannot read /proc/<agentci>/environ
    hide_initial_environ()  # nor a root child: the values there are blanked

    if opts.recipe is not None and not opts.recipe.is_file():  # nothing to run: no outputs
        what = "is a folder, not a recipe file" if opts.recipe.is_dir() else "no such recipe file"
        tell(f"agentci: error: {opts.recipe}: {what}")
        if os.environ.get("GITHUB_ACTIONS") == "true" and opts.output_format != "jsonl":
            text = neutralise_workflow_commands(f"{opts.recipe}: {what}").replace("%", "%25")
            with contextlib.suppress(OSError, ValueError):  # a closed stdout changes nothing
                print(f"::error title=agentci::agentci invalid_input (exit 2): {text}", flush=True)
        return 2
    try:
        checked = check_recipe(
            opts.recipe,
            opts.params,
            out_dir=opts.out_dir,
            overrides=opts.budget_overrides,
            fields=opts.fields,
            live=not opts.key_when_needed,
        )
        recipe, plans = checked.recipe, checked.plans
        check_tracing(opts.otel)  # --otel without the extra: refused like any bad flag
        if opts.limit_plans is not None:
            plans = opts.limit_plans(plans)
        points: dict[str, ResumePoint] = {}
        out_path = opts.out_dir or Path(recipe.outputs.dir)
        if opts.resume is not None:  # read before the out dir moves (it may be the same)
            points = load_resume(opts.resume, plans, force=opts.resume_force)
            check_in_place(points, plans, Path.cwd(), opts.workspace)
            refuse_overwriting(opts.resume, out_path)
        # last: a refused run leaves the old outputs alone
        out_dir = prepare_out_dir(out_path, reserve=True)
    except ResumeRefused as err:  # the earlier outputs and the workspace are left as they are
        for line in str(err).splitlines():
            tell(f"agentci: error: {line}")
        return 2
    except (InvalidInput, OSError) as err:  # OSError: an unreadable recipe, an unusable out dir
        out_dir = opts.out_dir or _outputs_dir(opts.recipe)
        return invalid_input_exit(opts, out_dir, str(err), Redactor.from_environ())

    if not opts.quiet:
        models = [n for plan in plans for n in (plan.model.name, *plan.model.fallback_names())]
        for note in key_notes(models, os.environ):
            print(f"agentci: note: {note}", file=sys.stderr)
    # a model's key, and the variables MCP servers take (${VAR}), are masked whatever their
    # names
    redactor = Redactor.from_environ(secret_vars(plans))
    # the answer (--prompt) or the events (--format jsonl) on stdout: a loss counts at the exit
    product = StdoutProduct("the events" if opts.output_format == "jsonl" else "the answer")
    emitter = Emitter(new_run_id(), _sinks(opts, out_dir, redactor, product=product))
    settings = RunSettings(
        recipe=recipe,
        recipe_path=opts.recipe.resolve() if opts.recipe is not None else None,
        base_dir=Path.cwd(),
        workspace_override=opts.workspace,
        record=opts.record,
        redactor=redactor,
        resume=points,
    )

    delivery = delivery_for(settings, skip_if_proposed=opts.skip_if_proposed)
    resumed_from = None
    if opts.resume is not None:
        source = opts.resume
        if source.resolve() == out_dir.resolve():  # moved aside by prepare_out_dir
            source = out_dir.with_name(out_dir.name + ".prev")
            for point in points.values():
                point.source = Path(shown_path(source))
        resumed_from = shown_path(source)
    optional = frozenset(recipe.outputs.extra) if opts.optional is None else opts.optional
    runner = Runner(
        settings,
        plans,
        out_dir=out_dir,
        emitter=emitter,
        redactor=redactor,
        delivery=delivery,
        optional=optional,
        resumed_from=resumed_from,
    )

    def leave_now(report: RunReport) -> None:
        """A cancelled run is over once its outputs are written: exit without waiting for work
        it abandoned (a git snapshot in a worker thread would hold up the interpreter's exit)."""
        emitter.close()
        quiet_failure_line(opts.quiet, report, redactor)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(report.exit_code)

    try:
        report = asyncio.run(run_with_signals(runner, leave_now))
    except Exception as err:  # noqa: BLE001 - a bug outside any task: still finish the run
        return crash_exit(err, runner=runner, redactor=redactor)
    finally:
        emitter.close()
    if not opts.quiet:
        tell(_outputs_line(out_dir, optional))
    if opts.record is not None and not opts.quiet:
        tell(replay_hint(opts.record, opts.recipe, len(plans)))
    quiet_failure_line(opts.quiet, report, redactor)
    if opts.answer_to_stdout and opts.output_format != "jsonl":
        print_answer(report, redactor, product)
    if product.lost is not None:
        tell(product.line())
    return product.exit_code(report.exit_code)


def _outputs_dir(recipe_path: Path | None) -> Path:
    """The recipe's ``outputs.dir`` when it can be read, else the default."""
    if recipe_path is None:
        return Path(".agentci/out")
    try:
        return Path(load_recipe(recipe_path).outputs.dir)
    except (InvalidInput, OSError):
        return Path(".agentci/out")


def invalid_input_exit(opts: LaunchOptions, out_dir: Path, message: str, redactor: Any) -> int:
    """Say what is wrong in one line, write the outputs of a run that never started, exit 2."""
    for line in redactor.redact(message).splitlines() or [""]:
        tell(f"agentci: error: {line}")
    try:
        out_dir = prepare_out_dir(out_dir)
    except (OSError, InvalidInput) as err:
        tell(f"agentci: error: no outputs written: {err}")
        return 2
    emitter = Emitter(new_run_id(), _sinks(opts, out_dir, redactor, console=False))
    name = opts.recipe.stem if opts.recipe is not None else "prompt"
    report = RunReport(
        run_id=emitter.run_id,
        recipe=recipe_label(opts.recipe),
        recipe_name=name,
        status=Status.invalid_input,
        exit_code=2,
        reason=message,
        tasks=[TaskReport(name=name, status=Status.invalid_input, exit_code=2, reason=message)],
        started_at=utc_now(),
    )

    emitter.emit(Error(kind="invalid_input", message=message))
    optional = OPTIONAL_OUTPUTS if opts.optional is None else opts.optional  # no recipe to ask
    finish_run(report, {name: ""}, out_dir=out_dir, emitter=emitter, redactor=redactor,
               optional=optional)  # fmt: skip
    emitter.close()
    return 2


def _outputs_line(out_dir: Path, optional: Collection[str]) -> str:
    """The console's last word on the outputs: the main files that are there (a run that
    refused to write its outputs names none)."""
    first = "report.html" if "report.html" in optional else "result.json"
    there = [n for n in ("summary.md", "patch.diff", first) if (out_dir / n).is_file()]
    if not there:
        return f"agentci: no outputs written in {shown_path(out_dir)}/ (see the reason above)"
    return f"agentci: outputs in {shown_path(out_dir)}/ ({', '.join(there)}, …)"
