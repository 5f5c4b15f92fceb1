"""What ``agentci run`` prints once the run is over, besides the event log's console view: the
final answer (``--prompt``), a quiet run's failure line, how to replay a recorded run, and paths
as the user would type them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from agentci.events.sinks import silence, tell
from agentci.events.stdout_product import StdoutProduct
from agentci.reports.report import RunReport


def shown_path(path: Path) -> str:
    """``path`` as the user would type it: relative when it is under the working directory."""
    rel = os.path.relpath(path, Path.cwd())
    return str(path) if rel.startswith("..") else rel


def print_answer(report: RunReport, redactor: Any, product: StdoutProduct) -> None:
    """The final answer on stdout (``--prompt``): the structured answer as JSON when the run has
    an output schema, else the model's last message. A write error other than a closed pipe
    is noted in ``product`` (the answer is lost: agentci.events.stdout_product)."""
    task = report.tasks[0] if len(report.tasks) == 1 else None
    if task is None:
        return
    if task.output is not None:
        text = json.dumps(redactor.redact_obj(task.output), indent=2, ensure_ascii=False)
    else:
        text = redactor.redact(task.summary)
    if text:
        try:
            print(text, flush=True)
        except ValueError:  # a closed stdout changes nothing
            pass
        except OSError as err:  # a closed pipe changes nothing either; a full disk does
            product.failed(err)
            silence(sys.stdout)  # what is still buffered cannot fail again at the exit


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
