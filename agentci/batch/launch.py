"""From ``agentci batch`` (or ``agentci run --shard``) to an exit code: check every recipe,
prepare the output folder, run the tasks with signal handlers, write the merged outputs.

Bad input (a recipe, a ``-p``, a shard that selects nothing, an unusable ``--out``) is exit 2
before any task starts, with one line per problem. SIGINT/SIGTERM cancel every task (each
writes its outputs), then the merged outputs are written and the process exits 130/143; a
second signal exits at once with the first one's code, keeping the baseline of each running task
that edits its workspace in place, as ``agentci run`` does (:mod:`agentci.run.signal_handlers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci.batch.progress import Board, console_mode
from agentci.batch.runner import BatchRunner
from agentci.batch.select import BatchTask, load_tasks, select_shard
from agentci.errors import InvalidInput
from agentci.events.sinks import tell
from agentci.outcome import Status, exit_code_for
from agentci.policy.env import hide_initial_environ, make_undumpable
from agentci.process_groups import kill_running_groups
from agentci.recipe.load import load_recipe
from agentci.reports.outdir import prepare_out_dir
from agentci.reports.redact import Redactor, neutralise_workflow_commands
from agentci.run import early
from agentci.run.crash import crash_exit
from agentci.run.resume import (
    ResumePoint,
    ResumeRefused,
    check_in_place,
    load_resume,
    refuse_overwriting,
)
from agentci.run.secret_vars import secret_vars
from agentci.run.signal_handlers import end_at_once
from agentci.run.tracing import batch_trace, check_tracing


@dataclass
class BatchOptions:
    """What ``agentci batch`` / ``agentci run --shard`` was asked to do."""

    recipes: list[Path]
    params: list[str] = field(default_factory=list)
    out_dir: Path | None = None
    jobs: int = 1
    fail_fast: bool = False
    skip_if_proposed: bool = False
    shard: str | None = None
    budget_overrides: dict[str, Any] = field(default_factory=dict)
    verbose: bool = False
    quiet: bool = False
    otel: bool = False  # OpenTelemetry spans (also on with OTEL_EXPORTER_OTLP_ENDPOINT)
    resume: Path | None = None  # --resume OUT: an earlier batch's (or shard's) output folder
    resume_force: bool = False
    #: --outputs: the optional outputs every task writes (None: each recipe's outputs.extra)
    extra_outputs: frozenset[str] | None = None


def launch_batch(opts: BatchOptions) -> int:
    """Run the batch; return the process exit code (70 when a bug escapes)."""
    early.remember()  # a signal from now on: every task ends cancelled, with its outputs
    try:
        return _launch(opts)
    except Exception as err:  # noqa: BLE001 - the exit code must still tell the truth
        return crash_exit(err)


def batch_resume(
    source: Path | None, tasks: list[BatchTask], *, force: bool
) -> dict[str, dict[str, ResumePoint]]:
    """``--resume OUT`` of a batch: each task's earlier one-task run in
    ``OUT/<recipe>/<task>/`` (a task without one runs from the start), by task key. An in-place
    workspace must be a clean checkout of the earlier base (:func:`check_in_place`)."""
    if source is None:
        return {}
    if not source.is_dir() or not (source / "result.json").is_file():
        raise ResumeRefused(
            f"--resume {source}: no result.json: not the output folder of an agentci batch"
        )
    points: dict[str, dict[str, ResumePoint]] = {}
    for task in tasks:
        folder = source / task.folder
        if folder.is_dir() and not folder.is_symlink():
            points[task.key] = load_resume(folder, [task.plan], force=force)
            check_in_place(points[task.key], [task.plan], Path.cwd(), None)
    return points


def _default_out(recipes: list[Path]) -> Path:
    with contextlib.suppress(InvalidInput, OSError, IndexError):
        return Path(load_recipe(recipes[0]).outputs.dir)
    return Path(".agentci/out")


def _launch(opts: BatchOptions) -> int:
    make_undumpable()
    hide_initial_environ()  # nor a root child: the values there are blanked
    redactor = Redactor.from_environ()
    try:
        tasks = load_tasks(opts.recipes, opts.params, opts.budget_overrides)
        if opts.shard is not None:
            tasks = select_shard(tasks, opts.shard)
        check_tracing(opts.otel)  # --otel without the extra: refused like any bad flag
        resume = batch_resume(opts.resume, tasks, force=opts.resume_force)
        out_path = opts.out_dir or _default_out(opts.recipes)
        if opts.resume is not None:  # never move the folder resumed from over <out>.prev
            refuse_overwriting(opts.resume, out_path)
        out_dir = prepare_out_dir(out_path, reserve=True)
        if opts.resume is not None and opts.resume.resolve() == out_dir.resolve():
            moved = out_dir.with_name(out_dir.name + ".prev")  # moved aside by prepare_out_dir
            for task in tasks:
                for point in resume.get(task.key, {}).values():
                    point.source = moved / task.folder
    except (InvalidInput, OSError) as err:
        for line in redactor.redact(str(err)).splitlines() or [""]:
            tell(f"agentci: error: {line}")
        return 2

    # a model's key, and the variables MCP servers take (${VAR}), are masked whatever their
    # names
    redactor = Redactor.from_environ(secret_vars(t.plan for t in tasks))

    def sanitize(text: str) -> str:
        return neutralise_workflow_commands(redactor.redact(text))

    recipe_names = list(dict.fromkeys(t.recipe.name for t in tasks))
    trace: Any = batch_trace(redactor.redact, recipe_names, len(tasks), flag=opts.otel)
    board = Board([t.key for t in tasks], mode=console_mode(sys.stderr, quiet=opts.quiet),
                  sanitize=sanitize, verbose=opts.verbose)  # fmt: skip
    batch = BatchRunner(
        tasks,
        out_dir=out_dir,
        jobs=opts.jobs,
        board=board,
        redactor=redactor,
        base_dir=Path.cwd(),
        fail_fast=opts.fail_fast,
        skip_if_proposed=opts.skip_if_proposed,
        trace=trace,
        resume=resume,
        extra_outputs=opts.extra_outputs,
    )
    if not opts.quiet:
        for note in batch.notes:
            tell(f"agentci: note: {note}")
    # Each task is a one-task run: only the batch's summary goes to the job page.
    step_summary = os.environ.pop("GITHUB_STEP_SUMMARY", None)
    try:
        result = asyncio.run(_run_with_signals(batch))
    except Exception:
        if trace is not None:  # a bug: the spans so far are still exported
            trace.finish("internal_error", 70, "a bug in agentci")
        raise
    finally:
        board.close()
        if step_summary is not None:
            os.environ["GITHUB_STEP_SUMMARY"] = step_summary
    code = int(result["exit_code"])
    if trace is not None:  # the run span ends; what is left is exported (bounded)
        trace.finish(str(result["status"]), code, str(result.get("reason") or ""))
    if step_summary:
        with contextlib.suppress(OSError):
            text = (out_dir / "summary.md").read_text(encoding="utf-8")
            with open(step_summary, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")
    if not opts.quiet or code != 0:
        totals = ", ".join(f"{n} {s}" for s, n in result["totals"]["statuses"].items())
        reason = f": {redactor.redact(result['reason'])}" if result["reason"] and code else ""
        tell(f"agentci: batch {result['status']} (exit {code}){reason} [{totals}]; "
             f"outputs in {out_dir}")  # fmt: skip
    if batch.signal_name is not None:  # do not wait for work the cancelled tasks abandoned
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code


async def _run_with_signals(batch: Any) -> dict[str, Any]:
    """Run with SIGINT / SIGTERM handlers (see the module docstring)."""
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: object) -> None:
        if batch.committed:
            return
        name = signal.Signals(signum).name
        if batch.signal_name is not None:
            _exit_now(batch)
        batch.signal_name = name
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(batch.cancel, name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)

    batch.signal_name = batch.signal_name or early.pending()  # came while it was set up
    result: dict[str, Any] = await batch.run()
    return result


def _exit_now(batch: Any) -> None:
    code = exit_code_for(Status.cancelled, signal_name=batch.signal_name)
    kill_running_groups()
    for runner in list(batch.running.values()):
        end_at_once(runner, code)  # a task editing its workspace in place keeps its baseline
    os._exit(code)
