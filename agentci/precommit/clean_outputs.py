"""The outputs and console lines of a pre-commit run whose baseline verify passed, written by
the hook's clean path (:mod:`agentci.precommit.quick`) without the event and report models.

They are the files the whole run writes when ``verify.skip_if_passing`` ends its task before
the model (docs/outputs.md): events.jsonl (run_started, verify_result, task_started,
task_finished, run_finished), patch.diff and history.jsonl (empty), junit.xml, result.json and
summary.md — the same bytes but for the times and the run id
(tests/precommit/test_quick.py compares them with a whole run's).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentci import __version__, jsontext
from agentci.errors import InvalidInput
from agentci.reports.atomic import write_bytes_atomic
from agentci.reports.outdir import prepare_out_dir, refuse_inside_workspace
from agentci.reports.redact import Redactor, neutralise_workflow_commands
from agentci.run import early

#: The variables the run masks whatever their names (the Gemini provider's key variables).
KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
LABEL = "<built-in recipe fix-lint>"
WHY = (
    "verify already passes before the agent started: nothing to fix (verify.skip_if_passing); "
    "the model was not called"
)
USAGE: dict[str, Any] = {
    "prompt_tokens": 0, "output_tokens": 0, "thoughts_tokens": 0, "cached_tokens": 0,
    "total_tokens": 0, "cost_usd": None, "model_calls": 0, "estimated_calls": 0,
    "cache_write_tokens": 0, "cache_storage_token_hours": 0.0,
}  # fmt: skip


@dataclass
class CleanRun:
    """What the clean path found: everything the outputs of the run it stands for say."""

    recipe: dict[str, Any]
    recipe_bytes: bytes
    files: list[str]
    command: str
    prompt: str  # as the run renders it (:func:`render_prompt`)
    output: str
    workspace: Path
    duration_ms: int  # the verify run's
    started: float  # time.monotonic() at the start of the task
    started_at: str  # the run's start, as utc_now() writes it
    verified_at: str  # when the linter ended
    search_engine: str
    base_commit: str | None


def utc_now() -> str:
    """As agentci.events.sinks.utc_now: ISO-8601 UTC with milliseconds and a ``Z``."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def write_clean_run(found: CleanRun, out_dir: Path, *, quiet: bool) -> int | None:
    """Write the outputs of the clean run in ``out_dir`` and print its lines; 0, or None when
    the run must decide: the output folder cannot be used (the run says why), an output could
    not be written (a full disk: the run ends ``internal_error``, exit 70), or a signal came
    while they were written (the run starts cancelled). Before None, what was written here is
    removed again."""
    try:
        refuse_inside_workspace(out_dir, found.workspace)
        out = prepare_out_dir(out_dir)  # no space kept: the outputs follow at once
    except (InvalidInput, OSError):
        return None
    redactor = Redactor.from_environ(KEY_VARS)
    name = found.recipe.get("name", "fix-lint")
    model = found.recipe["model"]["name"]
    prompt = found.prompt
    run_id = uuid.uuid4().hex[:12]
    task_ms = int((time.monotonic() - found.started) * 1000)
    events = [
        {"type": "run_started", "recipe": LABEL, "recipe_name": name, "tasks": [name],
         "agentci_version": __version__, "resumed_from": None},
        {"type": "verify_result", "phase": "baseline", "scope": "full", "attempt": 0,
         "command": found.command, "exit_code": 0, "passed": True, "counts": {}, "tests": [],
         "changes": {}, "output_tail": found.output, "duration_ms": found.duration_ms,
         "locations": []},
        {"type": "task_started", "model": model, "workspace": str(found.workspace),
         "prompt": prompt, "search_engine": found.search_engine, "context_files": []},
        {"type": "task_finished", "status": "success", "exit_code": 0, "reason": WHY,
         "turns": 0, "changed_files": [], "usage": USAGE},
    ]  # fmt: skip
    stamps = [found.started_at, found.verified_at, utc_now(), utc_now()]
    lines = [
        _line(redactor, run_id, i + 1, name if i else "", e, stamps[i])
        for i, e in enumerate(events)
    ]
    run_ms = int((time.monotonic() - found.started) * 1000)
    reason = f"{name}: {WHY}"
    lines.append(
        _line(redactor, run_id, 5, "", {"type": "run_finished", "status": "success",
              "exit_code": 0, "reason": reason, "usage": USAGE, "duration_ms": run_ms},
              utc_now())
    )  # fmt: skip
    result = _result(found, name, model, run_id, reason, task_ms, run_ms)
    outputs = {
        "patch.diff": "",
        "history.jsonl": "",
        "junit.xml": _junit(name, run_id, task_ms),
        "events.jsonl": "".join(lines),
        "summary.md": _summary(name, reason, run_ms),
        "result.json": jsontext.dumps(redactor.redact_json(result), indent=2) + "\n",
    }  # result.json last: no folder holds a success result without the rest
    if not _write_all(out, outputs):
        return None
    if not quiet:
        for text in (
            f"agentci {__version__}: {name} ({LABEL})",
            "  verify (baseline) passed",
            f"▸ task {name}: model {model}, workspace {found.workspace}",
            f"■ task {name}: success (exit 0), 0 turns, 0 files changed — {WHY}",
            f"agentci: success (exit 0), 0 tokens — {reason}",
        ):
            _tell(neutralise_workflow_commands(redactor.redact(text)))
        _tell(f"agentci: outputs in {_shown(out)}/ (summary.md, patch.diff, result.json, …)")
    return 0


def render_prompt(template: str, command: str, output: str, quoted: str) -> str:
    """The recipe's prompt as the run renders it (its three placeholders; ``quoted`` is
    ``{{ files }}``, the files shell-quoted)."""
    for key, value in (
        ("{{ verify.command }}", command),
        ("{{ verify.output }}", output),
        ("{{ files }}", quoted),
    ):
        template = template.replace(key, value)
    return template


def _write_all(out: Path, outputs: dict[str, str]) -> bool:
    """Write ``outputs`` (file name → text) in ``out``; False when one cannot be written or a
    signal came meanwhile (agentci.run.early): then ``out`` is left empty again, as the run
    expects to find it (everything in it is this path's: prepare_out_dir moved the previous
    outputs to ``<dir>.prev``, where the run leaves them)."""
    try:
        for file, text in outputs.items():
            write_bytes_atomic(out / file, text.encode("utf-8", "surrogateescape"))
        if early.pending() is None:
            return True
    except OSError:
        pass
    with contextlib.suppress(OSError):
        for path in list(out.iterdir()):
            with contextlib.suppress(OSError):
                path.unlink()
    return False


def _line(
    redactor: Redactor, run_id: str, seq: int, task: str, data: dict[str, Any], ts: str
) -> str:
    event = {"v": 1, "seq": seq, "ts": ts, "run_id": run_id, "task": task, **data}
    return jsontext.dumps(redactor.redact_json(event), separators=(",", ":")) + "\n"


def _result(
    found: CleanRun, name: str, model: str, run_id: str, reason: str, task_ms: int, run_ms: int
) -> dict[str, Any]:
    usage = {**USAGE, "cache_hit_rate": None}
    verify = found.recipe["verify"]
    common = {"retryable": False}
    task: dict[str, Any] = {
        "name": name, "status": "success", "exit_code": 0, **common, "reason": WHY,
        "summary": "", "model": model, "turns": 0, "tool_calls": 0, "usage": usage,
        "cost_usd": None, "changed_files": [], "duration_ms": task_ms,
        "verify": {"runs": 1, "passed": True, "counts": {}, "exit_code": 0},
        "extra": {
            "verify": {
                "command": found.command, "strategy": "full", "runs": [],
                "baseline": {"passed": True, "counts": {}, "failing": []}, "attempts": 0,
                "max_attempts": verify.get("attempts", 1), "passed": True, "counts": {},
                "agent_skipped": True, "fixed": [], "still_failing": [], "regressed": [],
                "added": [], "added_failing": [], "removed": [], "flaky": [],
            },
            "guards": [],
        },
        "output": None, "context_files": [],
        "resume": {"fingerprint": {
            "model": model, "recipe": hashlib.sha256(found.recipe_bytes).hexdigest(),
            "base_commit": found.base_commit,
        }},
    }  # fmt: skip
    return {
        "version": 1, "status": "success", "exit_code": 0, **common, "reason": reason,
        "summary": "", "usage": usage, "cost_usd": None, "turns": 0, "tool_calls": 0,
        "changed_files": [], "patch_redacted": False, "patch_incomplete": False,
        "patch_omitted": [], "patch_base": None, "ignored_files_written": [],
        "ignored_files_deleted": [], "output": None,
        "duration_ms": run_ms, "started_at": found.started_at, "run_id": run_id,
        "recipe": LABEL, "recipe_name": name, "resumed_from": None,
        "all_runs": {"turns": 0, "tool_calls": 0, "usage": usage, "cost_usd": None},
        "tasks": [task],
    }  # fmt: skip


def _junit(name: str, run_id: str, task_ms: int) -> str:
    t = repr(task_ms / 1000.0)
    counts = 'tests="1" errors="0" failures="0" skipped="0"'
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<testsuites {counts} time="{repr(0.0 + float(t))}">\n'
        f'\t<testsuite name="{name}" id="{run_id}" {counts} time="{t}">\n'
        f'\t\t<testcase name="agent" classname="{name}" time="{t}" status="success" />\n'
        "\t</testsuite>\n</testsuites>\n"
    )


def _summary(name: str, reason: str, run_ms: int) -> str:
    return "\n".join(
        [
            f"## agentci: {name}",
            "",
            f"**Run succeeded** (status `success`, exit code 0): {reason}",
            "",
            "| task | status | exit | turns | tool calls | tokens | cost | verify |",
            "|---|---|---|---|---|---|---|---|",
            f"| {name} | success | 0 | 0 | 0 | 0 | n/a | passed |",
            "",
            "### Changed files (0)",
            "",
            "None.",
            "",
            "### Usage",
            "",
            "0 model calls, 0 prompt + 0 output + 0 thinking tokens (0 cached), cost n/a, "
            f"{run_ms / 1000:.1f} s.",
            "",
        ]
    )


def _shown(path: Path) -> str:
    """As agentci.run.end_lines.shown_path: relative when under the working directory."""
    rel = os.path.relpath(path, Path.cwd())
    return str(path) if rel.startswith("..") else rel


def _tell(line: str) -> None:
    try:
        if sys.stderr is not None:
            print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
