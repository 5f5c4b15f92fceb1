"""result.json: the machine-readable end of a run (docs/outputs.md).

Top level::

    {"version": 1, "status": "success", "exit_code": 0, "retryable": false, "reason": "",
     "summary": "<the model's last message>",   # several tasks: "[task] message" blocks
     "usage": {"prompt_tokens", "output_tokens", "thoughts_tokens", "cached_tokens",
               "total_tokens", "cost_usd", "model_calls", "estimated_calls",
               "cache_write_tokens", "cache_storage_token_hours",  # model.cache: explicit
               "cache_hit_rate"},              # cached / prompt tokens, null without prompt
     "cost_usd": 0.0123 | null, "turns": 7, "tool_calls": 12,
     "changed_files": ["src/x.py"],             # union over tasks, sorted
     "patch_redacted": false, "patch_incomplete": false, "patch_omitted": [{"path", "bytes"}],
     "patch_base": "HEAD 1a2b3c4d5e6f" | null, "ignored_files_written": ["build/x.o"],
     "ignored_files_deleted": [".env"],          # ignored files there at the start, now gone
     "output": {...} | null,   # the structured answer (output.schema); several tasks: {task: {...}}
     "duration_ms": 4200, "started_at": "...", "run_id": "...",
     "recipe": "path/to/recipe.yaml", "recipe_name": "fix-tests",
     "resumed_from": ".agentci/out.prev" | null,   # agentci run --resume OUT
     "all_runs": {"turns", "tool_calls", "usage", "cost_usd"},  # this run + the runs it resumed
     "tasks": [{"name", "status", "exit_code", "retryable", "reason", "summary", "model", "turns",
                "tool_calls", "usage", "cost_usd", "changed_files", "duration_ms",
                "verify": {"runs", "passed", "counts", "exit_code"} | null, "extra",
                "output": {...} | null, "context_files": [{"path", "bytes", "truncated"}],
                "resume": {"fingerprint", "resumed_from", "previous", "all_runs", ...} | null}]}

``status`` / ``exit_code`` are the run's (the worst task's) and agree with the process exit code
and the ``run_finished`` event. The file is written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentci import jsontext
from agentci.outcome import is_retryable
from agentci.reports.atomic import write_text_atomic
from agentci.reports.patchfacts import run_patch_facts
from agentci.reports.report import RunReport, TaskReport
from agentci.usage import Usage as UsageTotals
from agentci.usage import total, usage_dict

RESULT_VERSION = 1


def _status(value: object) -> str:
    return getattr(value, "value", None) or str(value)


def run_summary(run: RunReport) -> str:
    """The model's last message; with several tasks, one ``[task] message`` block each."""
    if len(run.tasks) == 1:
        return run.tasks[0].summary
    return "\n\n".join(f"[{t.name}] {t.summary}" for t in run.tasks if t.summary)


def run_usage(run: RunReport) -> UsageTotals:
    """The run's usage; summed from the tasks when the run's own totals are empty."""
    if run.usage.model_calls or run.usage.total_tokens or not run.tasks:
        return run.usage
    return total([t.usage for t in run.tasks])


def run_output(run: RunReport) -> Any:
    """The structured answer: the task's object, or ``{task: object}`` over the tasks that
    handed one in when there are several; None when there is none."""
    if len(run.tasks) == 1:
        return run.tasks[0].output
    answers = {t.name: t.output for t in run.tasks if t.output is not None}
    return answers or None


def changed_files(run: RunReport) -> list[str]:
    """Every file any task changed, sorted."""
    return sorted({f for t in run.tasks for f in t.changed_files})


def task_dict(task: TaskReport) -> dict[str, Any]:
    """One task's entry in ``tasks``."""
    verify = None
    if task.verify:
        last = task.verify[-1]
        verify = {
            "runs": len(task.verify), "passed": last.passed, "counts": dict(last.counts),
            "exit_code": last.exit_code,
        }  # fmt: skip
    return {
        "name": task.name,
        "status": _status(task.status),
        "exit_code": task.exit_code,
        "retryable": is_retryable(task.status),
        "reason": task.reason,
        "summary": task.summary,
        "model": task.model,
        "turns": task.turns,
        "tool_calls": task.tool_calls,
        "usage": usage_dict(task.usage),
        "cost_usd": task.usage.cost_usd,
        "changed_files": sorted(task.changed_files),
        "duration_ms": task.duration_ms,
        "verify": verify,
        "extra": task.extra,
        "output": task.output,
        "context_files": task.context_files,
        "resume": task.resume,
    }


def result_dict(run: RunReport) -> dict[str, Any]:
    """The whole result.json document as a dict."""
    usage = run_usage(run)
    return {
        "version": RESULT_VERSION,
        "status": _status(run.status),
        "exit_code": run.exit_code,
        "retryable": is_retryable(run.status),
        "reason": run.reason,
        "summary": run_summary(run),
        "usage": usage_dict(usage),
        "cost_usd": usage.cost_usd,
        "turns": sum(t.turns for t in run.tasks),
        "tool_calls": sum(t.tool_calls for t in run.tasks),
        "changed_files": changed_files(run),
        **run_patch_facts(run),
        "output": run_output(run),
        "duration_ms": run.duration_ms,
        "started_at": run.started_at,
        "run_id": run.run_id,
        "recipe": run.recipe,
        "recipe_name": run.recipe_name,
        "resumed_from": run.resumed_from,
        "all_runs": all_runs(run),
        "tasks": [task_dict(t) for t in run.tasks],
    }


def all_runs(run: RunReport) -> dict[str, Any]:
    """Turns, tool calls, usage and cost of the tasks over every run so far: this run's plus
    those of the runs it resumed (``--resume``); the same as this run's when it resumed none."""
    turns, calls, usages = 0, 0, []
    for t in run.tasks:
        block = (t.resume or {}).get("all_runs")
        if isinstance(block, dict):
            turns += int(block.get("turns", 0))
            calls += int(block.get("tool_calls", 0))
            usages.append(UsageTotals.model_validate(block.get("usage", {})))
        else:
            turns, calls = turns + t.turns, calls + t.tool_calls
            usages.append(t.usage)
    usage = total(usages)
    return {"turns": turns, "tool_calls": calls, "usage": usage_dict(usage),
            "cost_usd": usage.cost_usd}  # fmt: skip


def dumps(data: Any) -> str:
    """JSON text; anything not JSON-able becomes its ``str`` rather than an error, a name that
    is not UTF-8 its ``\\udcXX`` escape (:func:`agentci.jsontext.dumps`)."""
    return jsontext.dumps(data, indent=2, default=str) + "\n"


def write_result(path: Path, run: RunReport) -> None:
    """Write result.json for ``run`` atomically."""
    write_text_atomic(Path(path), dumps(result_dict(run)))
