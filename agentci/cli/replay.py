"""``agentci replay``: show a finished run again, from its events.jsonl."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel, ConfigDict

from agentci import jsontext
from agentci.cli.options import fail
from agentci.events.read import read_events
from agentci.events.replay_view import console_lines, jsonl_lines
from agentci.reports.html_report import patches_on_disk, render_report_html
from agentci.reports.rebuild import report_from_events
from agentci.reports.redact import Redactor
from agentci.reports.redact_report import redact_report
from agentci.reports.summary import render_summary
from agentci.workspace_io import UnsafePath, read_bytes

FORMATS = ("console", "jsonl", "summary", "html")


@click.command(name="replay")
@click.argument("events", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="console",
    show_default=True,
    help="console: the lines `agentci run` printed; jsonl: the events; summary: summary.md; "
    "html: report.html.",
)
@click.option("-v", "--verbose", is_flag=True, help="console: also turns, thoughts, allowed calls.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file instead of stdout.",
)
def replay_command(events: Path, output_format: str, verbose: bool, output: Path | None) -> None:
    """Show the finished run of EVENTS (an events.jsonl, or the output folder holding one)
    again: as the console view, the event lines, summary.md or report.html. Nothing is run and
    no model is called.

    \b
    Not to be confused with a recipe's `model.name: replay:FILE`, which runs a recipe anew
    against a recorded model session (a cassette written by `agentci run --record`).
    Event types this agentci does not know are skipped by the console and shown as they are
    by the other formats.
    """
    path = events / "events.jsonl" if events.is_dir() else events
    try:
        log = read_events(path)
    except OSError as err:
        raise fail(f"{path}: cannot read the events: {err.strerror or err}") from None
    if not log.events:
        raise fail(f"{path}: no events (is it an agentci events.jsonl?)")
    if log.bad_lines:
        click.echo(f"agentci: warning: {path}: {log.bad_lines} line(s) skipped (not a JSON "
                   "object: cut, not UTF-8 or nested too deep)", err=True)  # fmt: skip
    text = _render(log, path, output_format, verbose)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        raise fail(f"{output}: cannot write: {err.strerror or err}") from None


def _render(log: Any, path: Path, output_format: str, verbose: bool) -> str:
    redactor = Redactor.from_environ()  # the log is redacted already; this machine's secrets too
    if output_format == "console":
        return console_lines(log, sanitize=redactor.redact, verbose=verbose)
    if output_format == "jsonl":
        return jsonl_lines(log, redact=redactor.redact_obj)

    report = report_from_events(log, _result_json(path.parent / "result.json"))
    if output_format == "summary":
        return redactor.redact(render_summary(redact_report(report, redactor)))

    patches = patches_on_disk(path.parent, [t.name for t in report.tasks])
    return redactor.redact(render_report_html(report, log, patch=patches, redactor=redactor))


class _Guard(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str = "?"
    passed: bool = True
    message: str | None = None
    reverted: list[str] = []


class _Verify(BaseModel):
    model_config = ConfigDict(extra="allow")
    fixed: list[str] | None = None
    regressed: list[str] | None = None
    still_failing: list[str] | None = None
    added_failing: list[str] | None = None
    flaky: list[str] | None = None


class _Branch(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    commit: str


class _Extra(BaseModel):
    """The parts of a task's ``extra`` that summary.md and report.html read."""

    model_config = ConfigDict(extra="allow")
    verify: _Verify | None = None
    guards: list[_Guard] | None = None
    branch: _Branch | None = None
    branch_failed: str | None = None
    no_sandbox: str | None = None


class _Task(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str | None = None
    extra: _Extra | None = None
    duration_ms: int | None = None


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow")
    run_id: str | None = None
    tasks: list[_Task] = []


def _result_json(path: Path) -> dict[str, Any] | None:
    """The run's result.json when it has agentci's shape (it only adds what the events lack:
    guards, test changes, branches); None, with a warning, for one that is broken, a link or
    larger than 16 MB: the view is then made from the events alone."""
    try:
        data = jsontext.loads(read_bytes(path.parent, path.name, 16 * 1024 * 1024))
        _Result.model_validate(data)
    except UnsafePath as err:
        if not err.missing:
            click.echo(f"agentci: warning: {path}: not read ({err})", err=True)
        return None
    except ValueError as err:  # jsontext.NotJson, pydantic's ValidationError
        why = str(err).splitlines()[0]
        click.echo(f"agentci: warning: {path}: not agentci's result.json ({why}); the view "
                   "is made from the events alone", err=True)  # fmt: skip
        return None
    return dict(data)
