"""summary.md: the run in a few lines for humans (also shown on the GitHub job page).

Layout: a heading with the recipe, one status sentence in plain words with the exit code and the
reason, a table of tasks (status, exit, turns, tool calls, tokens, cost, verify counts), why a
failed task failed (:mod:`agentci.reports.summary_why`), the changed files, usage and cost, and
the model's final message per task — for a failed task labelled as the model's claim.
:func:`write_summary` also appends the text to ``$GITHUB_STEP_SUMMARY`` when that is set.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentci.outcome import is_retryable
from agentci.reports.atomic import write_text_atomic
from agentci.reports.markdown import cell as _cell
from agentci.reports.markdown import code as _code
from agentci.reports.markdown import fence as _fence
from agentci.reports.patchfacts import patch_notes
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.result import changed_files, run_usage
from agentci.reports.summary_answer import answer_lines, context_lines
from agentci.reports.summary_hooks import hook_lines
from agentci.reports.summary_weakened import weakened_lines
from agentci.reports.summary_why import why_lines
from agentci.usage import Usage, cache_hit_rate

WORDING = {
    "success": "succeeded",
    "no_changes": "finished without changing anything",
    "verify_failed": "failed: verify still fails",
    "invalid_input": "did not start: invalid input",
    "budget_exhausted": "stopped: a budget ran out",
    "loop_detected": "stopped: the model was looping",
    "blocked": "stopped: blocked",
    "provider_error": "failed: the model API failed",
    "provider_unavailable": "did not finish: the model API was unavailable (retryable)",
    "invalid_output": "failed: no answer matched the output schema",
    "internal_error": "failed: internal error in agentci",
    "cancelled": "cancelled",
}
RETRY_NOTE = (
    "The model API stayed unavailable after agentci's retries (quota, server errors, network): "
    "this says nothing about the work. Run it again later (exit code 75, `retryable: true` in "
    "result.json)."
)
MAX_FILES = 50
MAX_MESSAGE = 4000


def _status(value: object) -> str:
    return getattr(value, "value", None) or str(value)


def _hit(usage: Usage) -> str:
    """``, hit rate 42%``: the prompt cache's share of the prompt tokens ('' without prompt)."""
    rate = cache_hit_rate(usage)
    return "" if rate is None else f", cache hit rate {rate:.0%}"


def _task_hit(usage: Usage) -> str:
    """`` (30% cached)`` after a task's token count when its prompt cache served any."""
    rate = cache_hit_rate(usage)
    return f" ({rate:.0%} cached)" if rate and usage.cached_tokens else ""


def _cost(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def _verify(task: TaskReport) -> str:
    if not task.verify:
        return "-"
    last = task.verify[-1]
    counts = ", ".join(f"{v} {k}" for k, v in sorted(last.counts.items()) if v)
    return ("passed" if last.passed else "failed") + (f" ({counts})" if counts else "")


_TEST_GROUPS = (
    ("fixed", "Fixed"),
    ("regressed", "Regressed"),
    ("still_failing", "Still failing"),
    ("added_failing", "New and failing"),
    ("flaky", "Flaky (failed, then passed on a rerun)"),
)


def _test_changes(run: RunReport) -> list[str]:
    """What verify saw change between the baseline and the last run, per task."""
    lines: list[str] = []
    for t in run.tasks:
        verify = t.extra.get("verify") if isinstance(t.extra, dict) else None
        if not isinstance(verify, dict):
            continue
        groups = [(title, verify.get(key) or []) for key, title in _TEST_GROUPS]
        groups = [(title, ids) for title, ids in groups if ids]
        if not groups:
            continue
        title = "Tests" if len(run.tasks) == 1 else f"Tests: {_cell(t.name)}"
        lines += [f"### {title}", ""]
        for group, ids in groups:
            shown = ", ".join(_code(i) for i in ids[:MAX_FILES])
            more = f" and {len(ids) - MAX_FILES} more" if len(ids) > MAX_FILES else ""
            lines.append(f"- **{group} ({len(ids)})**: {shown}{more}")
        lines.append("")
    return lines


def _guards(run: RunReport) -> list[str]:
    """The guards that failed, and the files agentci reverted (they are not in the patch)."""
    lines: list[str] = []
    for t in run.tasks:
        broken = [g for g in (t.extra.get("guards") or []) if not g.get("passed")]
        if not broken:
            continue
        title = "Guards" if len(run.tasks) == 1 else f"Guards: {_cell(t.name)}"
        lines += [f"### {title}", ""]
        for g in broken:
            line = f"- **{_cell(g['name'])}**: {_cell(g.get('message') or 'violated')}"
            reverted = g.get("reverted") or []
            if reverted:
                shown = ", ".join(f"`{_cell(p)}`" for p in reverted[:MAX_FILES])
                more = f" and {len(reverted) - MAX_FILES} more" if len(reverted) > MAX_FILES else ""
                line += f"; reverted, not in the patch: {shown}{more}"
            lines.append(line)
        lines.append("")
    return lines


def _branches(run: RunReport) -> list[str]:
    """``outputs.branch``: where each task's patch was committed, or why it was not."""
    lines: list[str] = []
    for t in run.tasks:
        extra = t.extra if isinstance(t.extra, dict) else {}
        made, failed = extra.get("branch"), extra.get("branch_failed")
        who = "" if len(run.tasks) == 1 else f"{_cell(t.name)}: "
        if isinstance(made, dict):
            commit = str(made.get("commit", ""))[:12]
            lines.append(f"- {who}committed to branch {_code(str(made.get('name')))} ({commit})")
        elif failed:
            lines.append(
                f"- {who}**Not committed to a branch** (`branch_failed`): {_cell(str(failed))}"
            )
    return ["### Branch", "", *lines, ""] if lines else []


def _no_sandbox(run: RunReport) -> list[str]:
    """Tasks whose commands ran without a sandbox, and what that meant."""
    lines: list[str] = []
    for t in run.tasks:
        note = t.extra.get("no_sandbox") if isinstance(t.extra, dict) else None
        if note:
            who = "" if len(run.tasks) == 1 else f"{_cell(t.name)}: "
            lines.append(f"- {who}**No sandbox**: {_cell(str(note))}")
    return ["### Sandbox", "", *lines, ""] if lines else []


def render_summary(run: RunReport) -> str:
    """The summary as markdown."""
    status = _status(run.status)
    wording = WORDING.get(status, status)
    if status == "no_changes" and run.exit_code == 0:
        wording += " (allowed)"
    lines = [f"## agentci: {_cell(run.recipe_name or run.recipe)}", ""]
    line = f"**Run {wording}** (status `{status}`, exit code {run.exit_code})"
    if run.reason:
        line += f": {_cell(run.reason)}"
    lines += [line, ""]
    if is_retryable(status):
        lines += [RETRY_NOTE, ""]

    if run.tasks:
        lines += [
            "| task | status | exit | turns | tool calls | tokens | cost | verify |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for t in run.tasks:
            lines.append(
                f"| {_cell(t.name)} | {_status(t.status)} | {t.exit_code} | {t.turns} "
                f"| {t.tool_calls} | {t.usage.total_tokens}{_task_hit(t.usage)} | {_cost(t.usage.cost_usd)} "
                f"| {_cell(_verify(t))} |"
            )
        lines.append("")

    lines += _test_changes(run)
    lines += why_lines(run, WORDING)
    lines += _no_sandbox(run)
    lines += _guards(run)
    lines += hook_lines(run, _cell)
    lines += weakened_lines(run, _cell, _code)
    lines += _branches(run)
    files = changed_files(run)
    lines.append(f"### Changed files ({len(files)})")
    lines.append("")
    if files:
        lines += [f"- {_code(f)}" for f in files[:MAX_FILES]]
        if len(files) > MAX_FILES:
            lines.append(f"- … and {len(files) - MAX_FILES} more (see patch.diff)")
    else:
        lines.append("None.")
    lines.append("")
    lines += patch_notes(run, _code)
    lines += context_lines(run, _code)
    lines += answer_lines(run, _fence)

    u = run_usage(run)
    lines += [
        "### Usage",
        "",
        f"{u.model_calls} model calls, {u.prompt_tokens} prompt + {u.output_tokens} output"
        f" + {u.thoughts_tokens} thinking tokens ({u.cached_tokens} cached{_hit(u)}),"
        f" cost {_cost(u.cost_usd)}, {run.duration_ms / 1000:.1f} s.",
        "",
    ]

    for t in run.tasks:
        if not t.summary:
            continue
        title = "Final message" if len(run.tasks) == 1 else f"Final message: {_cell(t.name)}"
        if t.exit_code != 0:
            title = title.replace("Final message", "The model's final message (its claim)")
        text = t.summary.strip()
        if len(text) > MAX_MESSAGE:
            text = text[:MAX_MESSAGE] + "\n… (cut; full text in result.json)"
        fence = _fence(text)
        lines += [f"### {title}", ""]
        if t.exit_code != 0:
            lines += [
                f"What the model said when it stopped; the outcome is `{_status(t.status)}`, "
                "as checked by agentci above.",
                "",
            ]
        lines += [f"{fence}text", text, fence, ""]
    return "\n".join(lines).rstrip() + "\n"


def write_summary(path: Path, run: RunReport) -> None:
    """Write summary.md atomically and append it to ``$GITHUB_STEP_SUMMARY`` when set."""
    text = render_summary(run)
    write_text_atomic(Path(path), text)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(text + "\n")
