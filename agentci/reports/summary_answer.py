"""summary.md's sections about what the model read and handed in: the project context files
loaded for each task, and the structured answer (``output.schema``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from agentci.reports.report import RunReport

MAX_ANSWER = 4000  # characters of the answer shown; output.json has it whole


def context_lines(run: RunReport, code: Callable[[str], str]) -> list[str]:
    """``### Project context``: each file the model read before the prompt, with its size."""
    lines: list[str] = []
    for t in run.tasks:
        if not t.context_files:
            continue
        title = "Project context" if len(run.tasks) == 1 else f"Project context: {t.name}"
        lines += [f"### {title}", ""]
        for f in t.context_files:
            cut = ", cut at the cap" if f.get("truncated") else ""
            lines.append(f"- {code(str(f.get('path', '')))} ({f.get('bytes', 0)} bytes{cut})")
        lines.append("")
    return lines


def answer_lines(run: RunReport, fence: Callable[[str], str]) -> list[str]:
    """``### Answer``: the structured answer each task handed in (output.json), as JSON."""
    lines: list[str] = []
    for t in run.tasks:
        if t.output is None:
            continue
        title = "Answer" if len(run.tasks) == 1 else f"Answer: {t.name}"
        text = json.dumps(t.output, indent=2, ensure_ascii=False, default=str)
        if len(text) > MAX_ANSWER:
            text = text[:MAX_ANSWER] + "\n… (cut; the whole answer is in output.json)"
        mark = fence(text)
        lines += [f"### {title}", "", f"{mark}json", text, mark, ""]
    return lines
