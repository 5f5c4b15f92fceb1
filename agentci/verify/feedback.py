"""What the model reads about failures: test names, messages, trimmed tracebacks, capped.

Used for ``{{ verify.failures }}`` in the first prompt (the baseline's failures) and for the
follow-up prompts after a failing attempt or a guard violation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentci.verify.template import placeholder

if TYPE_CHECKING:
    from agentci.verify.compare import Changes
    from agentci.verify.guards import GuardResult
    from agentci.verify.run import VerifyRun

MAX_TESTS = 20  # failing tests shown in full
MAX_DETAIL_LINES = 30  # per traceback: the last lines, where the assertion is
MAX_CHARS = 12_000  # the whole failures text
OUTPUT_TAIL = 4_000  # without a JUnit report: the end of the command's output


def _trim(text: str, lines: int) -> str:
    rows = text.rstrip().splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join([f"… ({len(rows) - lines} lines cut)", *rows[-lines:]])


def tail(text: str, chars: int = OUTPUT_TAIL) -> str:
    """The last ``chars`` characters of ``text`` (with a note when cut)."""
    text = text.rstrip()
    return (
        text if len(text) <= chars else f"… ({len(text) - chars} characters cut)\n{text[-chars:]}"
    )


def failures_text(run: VerifyRun, *, limit: int = MAX_CHARS) -> str:
    """The failing tests of ``run`` with their messages and trimmed tracebacks.

    Without per-test results (no JUnit report), the tail of the command's output. Empty when
    the run passed.
    """
    if run.passed:
        return ""
    failing = [run.tests[t] for t in run.failing]
    if not failing:
        why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
        if run.unjudged:
            why += f", but verify cannot judge the change: {run.unjudged}"
        return f"`{run.command}` failed ({why}). End of its output:\n{tail(run.output)}"
    parts = [f"{len(failing)} failing test(s) from `{run.command}`:"]
    for test in failing[:MAX_TESTS]:
        block = f"\n### {test.id} ({test.outcome})"
        if test.message:
            block += f"\n{test.message[:500]}"
        if test.detail:
            block += f"\n```\n{_trim(test.detail, MAX_DETAIL_LINES)}\n```"
        parts.append(block)
    if len(failing) > MAX_TESTS:
        rest = ", ".join(t.id for t in failing[MAX_TESTS:])
        parts.append(f"\n… and {len(failing) - MAX_TESTS} more: {rest}")
    text = "\n".join(parts)
    return text if len(text) <= limit else text[:limit] + "\n… (cut)"


def template_vars(run: VerifyRun | None) -> dict[str, Any]:
    """The ``verify`` template variable: ``failures``, ``output``, ``passed``, ``failing``,
    ``counts``, ``ran`` (False when no baseline ran: then the rest is empty)."""
    if run is None:
        return placeholder()
    return {
        "ran": True,
        "passed": run.passed,
        "failures": failures_text(run),
        "output": tail(run.output),
        "failing": run.failing,
        "counts": run.counts(),
        "command": run.command,
    }


def verify_feedback(run: VerifyRun, changes: Changes | None, attempt: int, attempts: int) -> str:
    """The follow-up prompt after attempt ``attempt`` of ``attempts`` failed verify."""
    lines = [f"Verify still fails after your change (attempt {attempt} of {attempts})."]
    if run.scope == "failing_first":
        lines.append(
            "(Only the tests that failed before and the tests in the files you changed were "
            "run; the whole suite runs once these pass.)"
        )
    if changes is not None:
        if changes.fixed:
            lines.append(f"Now passing: {', '.join(changes.fixed)}.")
        if changes.regressed:
            lines.append(
                "REGRESSED (passed before your change, fail now; confirmed by a rerun): "
                + ", ".join(changes.regressed)
                + ". Your change broke them: fix that without breaking the others."
            )
    lines += ["", failures_text(run), "", "Fix the remaining failures, then finish."]
    return "\n".join(lines)


def guard_feedback(violations: list[GuardResult], attempt: int, attempts: int) -> str:
    """The follow-up prompt after the change broke the recipe's guards."""
    lines = [
        f"Your change breaks the recipe's rules (attempt {attempt} of {attempts}):",
        *[f"- {g.name}: {g.message}" for g in violations],
    ]
    reverted = sorted({p for g in violations for p in g.reverted})
    if reverted:
        lines.append(
            "agentci has reverted your changes to: " + ", ".join(reverted) + ". Do not change "
            "these files again; solve the task within the allowed files."
        )
    lines.append("Fix this, then finish.")
    return "\n".join(lines)
