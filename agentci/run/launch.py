"""From command-line choices to a finished run: load, plan, run, exit code.

Bad input (recipe, parameters, flags, keys) ends here with status ``invalid_input``, one
clear line on stderr and the outputs still written. Signals cancel the run cleanly; a
second signal exits at once (the event log stays valid line by line).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentci.errors import InvalidInput
from agentci.events.console import GitHubAnnotationsSink
from agentci.events.lifecycle_events import Error, RunFinished
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
from agentci.outcome import Status, exit_code_for
from agentci.policy.env import make_undumpable
from agentci.process import kill_running_groups
from agentci.providers.registry import key_notes
from agentci.recipe.load import load_recipe
from agentci.recipe.prompt_recipe import RecipeFields, recipe_label
from agentci.reports.outdir import prepare_out_dir
from agentci.reports.redact import Redactor, neutralise_workflow_commands
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.writer import OPTIONAL_OUTPUTS
from agentci.run import early
from agentci.run.crash import crash_exit
from agentci.run.preflight import check_recipe
from agentci.run.resume import (
    ResumePoint,
    ResumeRefused,
    check_in_place,
    load_resume,
    refuse_overwriting,
)
from agentci.run.runner import Runner, delivery_for, finish_run, new_run_id
from agentci.run.secret_vars import secret_vars
from agentci.run.task import RunSettings
from agentci.run.tracing import check_tracing, otel_sink
from agentci.run.workers import LoopWorkers
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
    optional: frozenset[str] = OPTIONAL_OUTPUTS  # report.html, sarif.json (pre-commit: neither)


def _sinks(
    opts: LaunchOptions, out_dir: Path, redactor: Any, *, console: bool = True
) -> list[Sink]:
    """The event log, the console view (``console=False``: none, the error is already
    printed), events on stdout (``--format jsonl``) or GitHub annotations (in Actions)."""

    def sanitize(text: str) -> str:
        return neutralise_workflow_commands(redactor.redact(text))

    lines = EventLines(redactor.redact_obj)  # one redaction per event for both JSONL sinks
    sinks: list[Sink] = [JsonlSink(out_dir / "events.jsonl", lines=lines)]
    if not opts.quiet and console:
        sinks.append(open_console_sink(sys.stderr, sanitize=sanitize, verbose=opts.verbose))
    if opts.output_format == "jsonl":
        sinks.append(StreamJsonlSink(sys.stdout, lines=lines))
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
    emitter = Emitter(new_run_id(), _sinks(opts, out_dir, redactor))
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
    runner = Runner(
        settings,
        plans,
        out_dir=out_dir,
        emitter=emitter,
        redactor=redactor,
        delivery=delivery,
        optional=opts.optional,
        resumed_from=resumed_from,
    )

    def leave_now(report: RunReport) -> None:
        """A cancelled run is over once its outputs are written: exit without waiting for work
        it abandoned (a git snapshot in a worker thread would hold up the interpreter's exit)."""
        emitter.close()
        _quiet_failure_line(opts, report, redactor)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(report.exit_code)

    try:
        report = asyncio.run(_run_with_signals(runner, leave_now))
    except Exception as err:  # noqa: BLE001 - a bug outside any task: still finish the run
        return crash_exit(err, runner=runner, redactor=redactor)
    finally:
        emitter.close()
    if not opts.quiet:
        tell(_outputs_line(out_dir, opts.optional))
    if opts.record is not None and not opts.quiet:
        tell(_replay_hint(opts.record, opts.recipe, len(plans)))
    _quiet_failure_line(opts, report, redactor)
    if opts.answer_to_stdout and opts.output_format != "jsonl":
        print_answer(report, redactor)
    return report.exit_code


def shown_path(path: Path) -> str:
    """``path`` as the user would type it: relative when it is under the working directory."""
    rel = os.path.relpath(path, Path.cwd())
    return str(path) if rel.startswith("..") else rel


def print_answer(report: RunReport, redactor: Any) -> None:
    """The final answer on stdout (``--prompt``): the structured answer as JSON when the run has
    an output schema, else the model's last message."""
    task = report.tasks[0] if len(report.tasks) == 1 else None
    if task is None:
        return
    if task.output is not None:
        text = json.dumps(redactor.redact_obj(task.output), indent=2, ensure_ascii=False)
    else:
        text = redactor.redact(task.summary)
    if text:
        with contextlib.suppress(OSError, ValueError):  # a closed stdout changes nothing
            print(text, flush=True)


def _quiet_failure_line(opts: LaunchOptions, report: RunReport, redactor: Any) -> None:
    if opts.quiet and report.exit_code != 0:  # quiet, but a failure is never silent
        reason = f": {redactor.redact(report.reason)}" if report.reason else ""
        tell(f"agentci: {report.status.value} (exit {report.exit_code}){reason}")


def _replay_hint(record: Path, recipe: Path | None, tasks: int) -> str:
    """How the recipe names the cassette just recorded (replay: paths are recipe-relative)."""
    if recipe is None:
        name = os.path.relpath(record.resolve(), Path.cwd())
        return f"agentci: recorded the model's answers; replay them with --model replay:{name}"
    name = os.path.relpath(record.resolve(), recipe.resolve().parent)
    if tasks > 1:
        stem, suffix = os.path.splitext(name)
        name = f"{stem}.<task>{suffix or '.jsonl'}"
    return f"agentci: recorded the model's answers; replay them with model.name: replay:{name}"


def _outputs_dir(recipe_path: Path | None) -> Path:
    """The recipe's ``outputs.dir`` when it can be read, else the default."""
    if recipe_path is None:
        return Path(".agentci/out")
    try:
        return Path(load_recipe(recipe_path).outputs.dir)
    except (InvalidInput, OSError):
        return Path(".agentci/out")


async def _run_with_signals(
    runner: Runner, leave_now: Callable[[RunReport], None] | None = None
) -> RunReport:
    """Run with SIGINT / SIGTERM handlers for the rest of the process (see :func:`on_signals`);
    a cancelled run calls ``leave_now`` as soon as its outputs are written."""
    loop = asyncio.get_running_loop()
    on_signals(runner, loop)
    runner.workers = LoopWorkers(loop)
    report = await runner.run()
    if report.status is Status.cancelled and leave_now is not None:
        leave_now(report)
    return report


def on_signals(runner: Runner, loop: asyncio.AbstractEventLoop) -> None:
    """Install SIGINT / SIGTERM handlers that stay until the process exits.

    The first signal cancels the run (in the event loop: the running task, or the writing of the
    outputs). A second one exits at once, with the code of the first (kills the tools' process
    groups, ends the log with ``run_finished``). Once the outputs are written
    (``runner.committed``), a signal changes nothing: the process exits with the code
    result.json holds. The handlers are plain ``signal.signal`` ones rather than the loop's, so
    no window opens when the loop closes in which a signal could end the process differently.
    """

    def handler(signum: int, frame: object) -> None:
        if runner.committed:
            return
        name = signal.Signals(signum).name
        if runner.signal_name is not None:  # the second signal: leave now
            _exit_now(runner)
        runner.signal_name = name
        with contextlib.suppress(RuntimeError):  # the loop has closed: the end is being written
            loop.call_soon_threadsafe(runner.cancel, name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)

    runner.signal_name = runner.signal_name or early.pending()  # came while it was set up


def _exit_now(runner: Runner) -> None:
    code = exit_code_for(Status.cancelled, signal_name=runner.signal_name)
    kill_running_groups()  # no tool outlives agentci, even now
    with contextlib.suppress(Exception):  # one last line keeps the log honest
        runner.emitter.emit(
            RunFinished(status="cancelled", exit_code=code, reason="a second signal")
        )
    os._exit(code)


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
    finish_run(report, {name: ""}, out_dir=out_dir, emitter=emitter, redactor=redactor)
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
