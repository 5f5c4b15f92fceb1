"""summary.md's "why" section: what a failed task ran into, in the words of what agentci saw.

For each task that did not succeed: its status in words, the verify command's last exit code
and the last lines of its output (and why it could not run at all, when its tool is missing),
the guards that failed and the files agentci reverted. The model's final message is shown
after this, as the model's claim: the outcome is what agentci checked, not what the model said.
"""

from __future__ import annotations

from agentci.events.diagnose import cannot_run
from agentci.reports.markdown import cell as _cell
from agentci.reports.markdown import code as _code
from agentci.reports.markdown import fence as _fence
from agentci.reports.report import RunReport, TaskReport

TAIL_LINES = 15


def _tail(text: str, lines: int = TAIL_LINES) -> str:
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept)


def why_lines(run: RunReport, wording: dict[str, str]) -> list[str]:
    """Markdown lines explaining each task that did not succeed (nothing for a success)."""
    lines: list[str] = []
    for task in run.tasks:
        status = getattr(task.status, "value", None) or str(task.status)
        if task.exit_code == 0:
            continue
        title = "Why" if len(run.tasks) == 1 else f"Why: {_cell(task.name)}"
        lines += [f"### {title}", ""]
        lines.append(f"- **Status**: {wording.get(status, status)} (`{status}`)")
        if task.reason:
            lines.append(f"- **Reason**: {_cell(task.reason)}")
        lines += _guard_lines(task, _cell, _code)
        last = task.verify[-1] if task.verify else None
        if last is not None and not last.passed:
            label = "baseline" if last.phase == "baseline" else f"attempt {last.attempt}"
            code = "no exit code (timed out)" if last.exit_code is None else last.exit_code
            lines.append(
                f"- **Verify** ({label}): {_code(last.command)} exited {code}"
                + (f" — {_cell(cannot_run(last.exit_code, last.output_tail))}" if
                   cannot_run(last.exit_code, last.output_tail) else "")
            )  # fmt: skip
            tail = _tail(last.output_tail)
            if tail:
                fence = _fence(tail)
                lines += ["", "  Last lines of its output:", "", f"  {fence}text"]
                lines += [f"  {line}" for line in tail.splitlines()] + [f"  {fence}"]
        lines.append("")
    return lines


def _guard_lines(task: TaskReport, cell, code) -> list[str]:  # noqa: ANN001 - summary helpers
    lines = []
    for guard in task.extra.get("guards") or [] if isinstance(task.extra, dict) else []:
        if not guard.get("passed", True):
            lines.append(
                f"- **Guard {cell(guard.get('name', '?'))}**: {cell(guard.get('message', ''))}"
            )
        reverted = guard.get("reverted") or []
        if reverted:
            files = ", ".join(code(path) for path in reverted)
            lines.append(f"- **Reverted by agentci** ({cell(guard.get('name', '?'))}): {files}")
    return lines
