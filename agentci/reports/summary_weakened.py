"""summary.md's "Weakened tests" section: what the ``weakened_tests`` guard found.

Read from each task's ``extra.weakened_tests`` (written by agentci.verify.stage): the findings
(each a test or file and what the change did to it), whether they fail the task (``on``) or are
only listed (``report``), and the files agentci set aside while verify ran.
"""

from __future__ import annotations

from collections.abc import Callable

from agentci.reports.report import RunReport

MAX_SHOWN = 30


def weakened_lines(
    run: RunReport, cell: Callable[[str], str], code: Callable[[str], str]
) -> list[str]:
    """The section's lines ([] when no task has findings or files set aside)."""
    lines: list[str] = []
    for task in run.tasks:
        data = task.extra.get("weakened_tests") if isinstance(task.extra, dict) else None
        if not isinstance(data, dict):
            continue
        findings = [f for f in data.get("findings") or [] if isinstance(f, dict)]
        aside = [str(p) for p in data.get("set_aside") or []]
        if not findings and not aside:
            continue
        title = "Weakened tests" if len(run.tasks) == 1 else f"Weakened tests: {cell(task.name)}"
        lines += [f"### {title}", ""]
        if findings:
            if data.get("mode") == "report":
                lines.append(f"{len(findings)} finding(s), reported only "
                             "(`guards.weakened_tests: report`):")  # fmt: skip
            else:
                lines.append(f"{len(findings)} finding(s): the change made the tests weaker, "
                             "so the task fails (`guards.weakened_tests`):")  # fmt: skip
            lines.append("")
            for f in findings[:MAX_SHOWN]:
                lines.append(f"- {code(str(f.get('test', '')))}: {cell(str(f.get('detail', '')))}")
            if len(findings) > MAX_SHOWN:
                lines.append(f"- … and {len(findings) - MAX_SHOWN} more (result.json)")
            lines.append("")
        if aside:
            shown = ", ".join(code(p) for p in aside[:MAX_SHOWN])
            lines += [f"Set aside while verify ran (made by the agent, hidden from the patch by "
                      f"the ignore rules): {shown}", ""]  # fmt: skip
    return lines
