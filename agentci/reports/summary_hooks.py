"""summary.md's "Hooks" section: every hook that ran, what it decided how often, and each
decision that was more than a plain ``continue`` (a deny, rewrite, block or stop) or a failed
hook, with its reason — from each task's ``extra["hooks"]`` (:mod:`agentci.reports.hook_facts`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentci.reports.report import RunReport

REASON_CHARS = 300


def hook_lines(run: RunReport, cell: Callable[[str], str]) -> list[str]:
    """The section's lines (none when no hook ran)."""
    tasks: list[tuple[str, dict[str, Any]]] = []
    for t in run.tasks:
        facts = t.extra.get("hooks") if isinstance(t.extra, dict) else None
        if isinstance(facts, dict) and facts:
            tasks.append((t.name, facts))
    if not tasks:
        return []
    several = len(run.tasks) > 1
    lines = ["### Hooks", ""]
    head = "| hook | command | runs | decisions |"
    if several:
        head = "| task " + head
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    notes: list[str] = []
    for name, facts in tasks:
        for row in facts.get("hooks", []):
            lines.append(_row(row, cell, name if several else None))
        for item in facts.get("notable", []):
            notes.append(_note(item, cell, name if several else None))
    lines.append("")
    if notes:
        lines += notes + [""]
    return lines


def _row(row: dict[str, Any], cell: Callable[[str], str], task: str | None) -> str:
    decisions = ", ".join(f"{n} {d}" for d, n in sorted(row.get("decisions", {}).items()))
    if row.get("failed"):
        decisions += f" ({row['failed']} failed)"
    cells = [f"`{cell(str(row.get('hook', '')))}`", cell(str(row.get("command", ""))),
             str(row.get("runs", 0)), cell(decisions)]  # fmt: skip
    if task is not None:
        cells.insert(0, cell(task))
    return "| " + " | ".join(cells) + " |"


def _note(item: dict[str, Any], cell: Callable[[str], str], task: str | None) -> str:
    reason = str(item.get("reason") or "")
    if len(reason) > REASON_CHARS:
        reason = reason[:REASON_CHARS] + " …"
    code = item.get("exit_code")
    where = f"{task}: " if task is not None else ""
    exit_note = ", no exit code" if code is None else ("" if code == 0 else f", exit {code}")
    return f"- {where}`{item.get('hook')}` {item.get('decision')}{exit_note}: {cell(reason)}"
