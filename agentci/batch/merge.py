"""The merged outputs of many tasks: one junit.xml, one result.json, one summary.md.

``agentci batch`` writes each task's outputs in ``<out>/<recipe>/<task>/`` (the files of a
one-task ``agentci run``), then merges them with :func:`write_merged`; ``agentci report
merge`` finds the same folders in downloaded shard outputs (:func:`find_task_outputs`),
copies them under its ``--out`` and merges them with the same function. The merged files are
built **only from the task folders**, tasks sorted by ``recipe/task``, so both give the same
files for the same tasks (run ids, times and durations aside).

Merged files:

* ``junit.xml`` — each task's suites, named ``recipe/task`` (``recipe`` for a recipe without
  ``tasks:``): one suite per task, with its ``agent`` case and its verify and guard cases.
* ``result.json`` — ``kind: "batch"``; ``status``/``exit_code``: the worst task's
  (``retryable``: true when that is ``provider_unavailable``, exit 75); ``totals``
  (tasks, count per status, usage, cost, turns, tool calls, changed files); ``tasks``: each
  task's key, folder, status, exit code, reason, usage, cost, changed files, branch; ``not_run``:
  the tasks not started (after a ``provider_unavailable`` task, or a failure under
  ``--fail-fast``), and ``not_run_reasons``: why, per task.
* ``summary.md`` — a table of the tasks, why the failed ones failed, the totals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from agentci import jsontext
from agentci.batch.shard_input import copy_tree, read_result, task_dir
from agentci.errors import InvalidInput
from agentci.outcome import Status, is_retryable, run_outcome
from agentci.reports.atomic import write_text_atomic
from agentci.reports.folders import task_dir_name
from agentci.reports.junit import junit_text, render_junit
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.result import dumps
from agentci.reports.summary import RETRY_NOTE, WORDING, _cell, _cost
from agentci.usage import ReportedUsage, Usage, usage_dict

_TS = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass
class TaskOutput:
    """One task's output folder and its result.json."""

    source: Path
    result: dict[str, Any]
    shard: tuple[Path, str] | None = None  # (shard folder, relative task folder): untrusted

    @property
    def recipe(self) -> str:
        return str(self.result.get("recipe_name") or "agentci")

    @property
    def task(self) -> dict[str, Any]:
        """Its entry in result.json's ``tasks`` (one made up from the run when it has none)."""
        tasks = self.result.get("tasks") or []
        if tasks:
            return dict(tasks[0])
        r = self.result
        return {"name": self.source.name, "status": r.get("status"), "exit_code": r.get("exit_code"),
                "reason": r.get("reason", ""), "usage": r.get("usage") or {}}  # fmt: skip

    @property
    def name(self) -> str:
        return str(self.task.get("name") or self.source.name)

    @property
    def key(self) -> str:
        return f"{self.recipe}/{self.name}"

    @property
    def folder(self) -> str:
        return f"{task_dir_name(self.recipe)}/{task_dir_name(self.name)}"


def read_task_output(folder: Path) -> TaskOutput:
    """The outputs of one task (InvalidInput when ``folder`` holds none, or several tasks)."""
    path = folder / "result.json"
    try:
        result = jsontext.loads(path.read_bytes())
    except (OSError, jsontext.NotJson) as err:
        raise InvalidInput(f"{folder}: no readable result.json ({err})") from None
    if len(result.get("tasks") or []) > 1:
        raise InvalidInput(
            f"{folder}: the outputs of a run of {len(result['tasks'])} tasks in one folder; "
            "merge the outputs of `agentci batch` or `agentci run --shard` (one folder per task)"
        )
    return TaskOutput(folder, result)


def find_task_outputs(dirs: list[Path]) -> list[TaskOutput]:
    """The task folders in ``dirs``: batch or shard outputs (their result.json lists them) or
    the folder of a one-task run. InvalidInput for a folder that is neither, a task found
    twice, or a result.json of another shape (downloaded folders are untrusted input:
    :mod:`agentci.batch.shard_input`)."""
    found: list[TaskOutput] = []
    for folder in dirs:
        result = read_result(folder)
        rels = (
            [task_dir(folder, t) for t in result["tasks"]]
            if result.get("kind") == "batch"
            else ["."]
        )
        for rel in rels:
            task = read_result(folder, rel) if rel != "." else result
            if len(task.get("tasks") or []) > 1:
                raise InvalidInput(
                    f"{folder / rel}: the outputs of a run of {len(task['tasks'])} tasks in one "
                    "folder; merge the outputs of `agentci batch` or `agentci run --shard` (one "
                    "folder per task)"
                )
            found.append(TaskOutput(folder / rel, task, (folder, rel)))
    seen: dict[str, Path] = {}
    for out in found:
        if out.key in seen:
            raise InvalidInput(f"task {out.key} is in both {seen[out.key]} and {out.source}")
        seen[out.key] = out.source
    return found


def copy_task_outputs(
    tasks: list[TaskOutput], out_dir: Path, skipped: list[str] | None = None
) -> list[TaskOutput]:
    """Copy each task folder to ``out_dir/<recipe>/<task>/`` (as ``agentci batch`` lays them),
    regular files only and no link followed; what is left out is added to ``skipped``."""
    copied = []
    for t in tasks:
        target = out_dir / t.folder
        folder, rel = t.shard or (t.source, ".")
        copy_tree(folder, rel, target, skipped if skipped is not None else [])
        copied.append(TaskOutput(target, t.result))
    return copied


def _entry(t: TaskOutput) -> dict[str, Any]:
    task = t.task
    extra = task.get("extra") or {}
    return {
        "key": t.key,
        "recipe": t.recipe,
        "task": t.name,
        "dir": t.folder,
        "status": task.get("status"),
        "exit_code": task.get("exit_code"),
        "retryable": is_retryable(str(task.get("status"))),
        "reason": task.get("reason", ""),
        "turns": task.get("turns", 0),
        "tool_calls": task.get("tool_calls", 0),
        "usage": task.get("usage") or {},
        "cost_usd": (task.get("usage") or {}).get("cost_usd"),
        "changed_files": task.get("changed_files") or [],
        "started_at": t.result.get("started_at", ""),
        "duration_ms": t.result.get("duration_ms", 0),
        "branch": extra.get("branch"),
        "already_proposed": extra.get("already_proposed"),
    }


def _span(entries: list[dict[str, Any]]) -> tuple[str, int]:
    """The earliest start and the time from it to the latest end, from the tasks' own times."""
    times = []
    for e in entries:
        try:
            start = datetime.strptime(e["started_at"], _TS).replace(tzinfo=timezone.utc)
        except (TypeError, ValueError):
            continue
        times.append((start, start.timestamp() * 1000 + int(e["duration_ms"] or 0)))
    if not times:
        return "", 0
    first = min(times)[0]
    end = max(t[1] for t in times)
    stamp = first.strftime("%Y-%m-%dT%H:%M:%S.") + f"{first.microsecond // 1000:03d}Z"
    return stamp, int(end - first.timestamp() * 1000)


def merged_result(tasks: list[TaskOutput], not_run: dict[str, str] | None = None) -> dict[str, Any]:
    """The merged result.json document."""
    entries = [_entry(t) for t in sorted(tasks, key=lambda t: t.key)]
    outcomes = [(Status(e["status"]), int(e["exit_code"])) for e in entries]
    status, code = run_outcome(outcomes) if entries else (Status.invalid_input, 2)
    worst = next(
        (e for e in entries if (e["status"], e["exit_code"]) == (status.value, code)), None
    )
    reason = f"{worst['key']}: {worst['reason']}" if worst and worst["reason"] else ""
    if not entries:
        reason = "no task ran"
    usage = sum((ReportedUsage.model_validate(e["usage"]) for e in entries), Usage())
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    started_at, duration = _span(entries)
    return {
        "version": 1,
        "kind": "batch",
        "status": status.value,
        "exit_code": code,
        "retryable": is_retryable(status),
        "reason": reason,
        "started_at": started_at,
        "duration_ms": duration,
        "totals": {
            "tasks": len(entries),
            "statuses": dict(sorted(counts.items())),
            "usage": usage_dict(usage),
            "cost_usd": usage.cost_usd,
            "turns": sum(e["turns"] for e in entries),
            "tool_calls": sum(e["tool_calls"] for e in entries),
            "changed_files": sum(len(e["changed_files"]) for e in entries),
        },
        "tasks": entries,
        "not_run": sorted(not_run or {}),
        "not_run_reasons": dict(sorted((not_run or {}).items())),
    }


def merged_junit(tasks: list[TaskOutput]) -> str:
    """One suite per task, named ``recipe/task``, from each task's junit.xml."""
    root = ET.Element("testsuites")
    for t in sorted(tasks, key=lambda t: t.key):
        name = t.recipe if t.name == t.recipe else t.key
        try:
            read = ET.fromstring((t.source / "junit.xml").read_bytes())
            suites = [read] if read.tag == "testsuite" else read.findall("testsuite")
            if not suites:
                raise ValueError("no testsuite")
        except Exception:  # noqa: BLE001 - a missing or broken file: the task's outcome only
            task = t.task
            status = Status(task.get("status") or "internal_error")
            report = RunReport("", "", t.recipe, status, int(task.get("exit_code") or 70))
            report.tasks = [TaskReport(t.name, status, report.exit_code, task.get("reason", ""))]
            suites = ET.fromstring(render_junit(report)).findall("testsuite")
        suite = suites[0]
        suite.set("name", name)
        for case in suite.iter("testcase"):
            case.set("classname", name)
        root.append(suite)
    return junit_text(root)


def merged_summary(result: dict[str, Any]) -> str:
    """summary.md of the batch."""
    total = result["totals"]
    wording = WORDING.get(result["status"], result["status"])
    lines = [f"## agentci batch: {total['tasks']} tasks", ""]
    line = f"**Batch {wording}** (status `{result['status']}`, exit code {result['exit_code']})"
    lines += [line + (f": {_cell(result['reason'])}" if result["reason"] else ""), ""]
    if result["retryable"]:
        lines += [RETRY_NOTE, ""]
    lines += ["| task | status | exit | turns | tool calls | tokens | cost | changed files |",
              "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for e in result["tasks"]:
        lines.append(
            f"| {_cell(e['key'])} | {e['status']} | {e['exit_code']} | {e['turns']} "
            f"| {e['tool_calls']} | {(e['usage'] or {}).get('total_tokens', 0)} "
            f"| {_cost(e['cost_usd'])} | {len(e['changed_files'])} |"
        )
    lines.append("")
    failed = [e for e in result["tasks"] if e["exit_code"] != 0 or e["reason"]]
    if failed:
        lines += ["### Notes", ""]
        for e in failed:
            lines.append(f"- **{_cell(e['key'])}** `{e['status']}`: {_cell(e['reason'] or '-')}")
        lines.append("")
    branches = [e for e in result["tasks"] if e.get("branch")]
    if branches:
        lines += ["### Branches", ""]
        for e in branches:
            b = e["branch"]
            lines.append(f"- **{_cell(e['key'])}**: `{_cell(b['name'])}` at `{b['commit'][:12]}`")
        lines.append("")
    if result["not_run"]:
        reasons = result.get("not_run_reasons") or {}
        lines += [
            f"### Not run ({len(result['not_run'])})",
            "",
            *[f"- {_cell(k)}: {_cell(reasons.get(k) or 'not started')}" for k in result["not_run"]],
            "",
        ]
    u = ReportedUsage.model_validate(total["usage"])
    lines += [
        "### Usage", "",
        f"{u.model_calls} model calls, {u.total_tokens} tokens, cost {_cost(u.cost_usd)},"
        f" {total['turns']} turns, {total['tool_calls']} tool calls.", "",
        "Each task's own outputs (summary.md, patch.diff, events.jsonl, junit.xml) are in"
        " `<recipe>/<task>/`.",
    ]  # fmt: skip
    return "\n".join(lines).rstrip() + "\n"


def write_merged(out_dir: Path, tasks: list[TaskOutput], not_run: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Write the merged junit.xml, result.json and summary.md; return the result."""
    result = merged_result(tasks, not_run)
    write_text_atomic(out_dir / "junit.xml", merged_junit(tasks))
    write_text_atomic(out_dir / "result.json", dumps(result))
    write_text_atomic(out_dir / "summary.md", merged_summary(result))
    return result
