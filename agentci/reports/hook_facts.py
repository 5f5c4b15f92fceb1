"""What the hooks of a task decided, for result.json's ``extra.hooks``, summary.md and the
report (docs/hooks.md, "Events, report and summary").

``{"hooks": [{"hook", "stage", "command", "runs", "decisions": {decision: n}, "failed"}],
"notable": [{"hook", "stage", "decision", "exit_code", "reason"}]}``: one row per hook that
ran, and each run that decided more than a plain ``continue`` or failed (the first
:data:`MAX_NOTABLE`).
"""

from __future__ import annotations

from typing import Any

from agentci.events.hook_events import HookResult

#: Runs listed one by one (the counts cover them all).
MAX_NOTABLE = 50


def failed(result: HookResult) -> bool:
    """The hook did not exit 0 or 2 (killed, timed out, crashed, not started)."""
    return result.exit_code not in (0, 2)


def hook_facts(results: list[HookResult]) -> dict[str, Any]:
    """The facts of ``results`` (the module docstring); empty when no hook ran."""
    rows: dict[str, dict[str, Any]] = {}
    notable: list[dict[str, Any]] = []
    for r in results:
        row = rows.setdefault(
            r.hook,
            {"hook": r.hook, "stage": r.stage, "command": r.command, "runs": 0,
             "decisions": {}, "failed": 0},
        )  # fmt: skip
        row["runs"] += 1
        row["decisions"][r.decision] = row["decisions"].get(r.decision, 0) + 1
        row["failed"] += failed(r)
        if (r.decision != "continue" or failed(r)) and len(notable) < MAX_NOTABLE:
            notable.append(
                {"hook": r.hook, "stage": r.stage, "decision": r.decision,
                 "exit_code": r.exit_code, "reason": r.reason or r.output}
            )  # fmt: skip
    if not rows:
        return {}
    return {"hooks": list(rows.values()), "notable": notable}
