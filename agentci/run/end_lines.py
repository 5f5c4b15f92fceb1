"""What ``agentci run`` prints once the run is over, besides the event log's console view: the
final answer (``--prompt``), a quiet run's failure line, how to replay a recorded run, and paths
as the user would type them."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from agentci.events.sinks import tell
from agentci.reports.report import RunReport


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


def quiet_failure_line(quiet: bool, report: RunReport, redactor: Any) -> None:
    """With ``--quiet``, a failed run still says one line: its status, exit code and reason."""
    if quiet and report.exit_code != 0:  # quiet, but a failure is never silent
        reason = f": {redactor.redact(report.reason)}" if report.reason else ""
        tell(f"agentci: {report.status.value} (exit {report.exit_code}){reason}")


def replay_hint(record: Path, recipe: Path | None, tasks: int) -> str:
    """How the recipe names the cassette just recorded (replay: paths are recipe-relative)."""
    if recipe is None:
        name = os.path.relpath(record.resolve(), Path.cwd())
        return f"agentci: recorded the model's answers; replay them with --model replay:{name}"
    name = os.path.relpath(record.resolve(), recipe.resolve().parent)
    if tasks > 1:
        stem, suffix = os.path.splitext(name)
        name = f"{stem}.<task>{suffix or '.jsonl'}"
    return f"agentci: recorded the model's answers; replay them with model.name: replay:{name}"
