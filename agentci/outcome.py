"""How a run ends: one status, one exit code, decided in one place.

result.json, the ``run_finished`` event, the summary and the process exit code all come
from :func:`exit_code_for`, so they can never disagree.
"""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """The outcome of a task or a run (docs/exit-codes.md)."""

    success = "success"
    no_changes = "no_changes"
    verify_failed = "verify_failed"
    invalid_input = "invalid_input"
    budget_exhausted = "budget_exhausted"
    loop_detected = "loop_detected"
    blocked = "blocked"
    provider_error = "provider_error"
    provider_unavailable = "provider_unavailable"
    invalid_output = "invalid_output"
    internal_error = "internal_error"
    cancelled = "cancelled"


EXIT_CODES: dict[Status, int] = {
    Status.success: 0,
    Status.no_changes: 1,
    Status.verify_failed: 1,
    Status.invalid_input: 2,
    Status.budget_exhausted: 3,
    Status.loop_detected: 4,
    Status.blocked: 5,
    Status.provider_error: 6,
    Status.provider_unavailable: 75,
    Status.invalid_output: 7,
    Status.internal_error: 70,
    Status.cancelled: 130,
}

SIGNAL_EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143}

#: Statuses that say nothing about the work: running the same task later may succeed.
RETRYABLE: frozenset[Status] = frozenset({Status.provider_unavailable})


def is_retryable(status: Status | str) -> bool:
    """Whether a task or run that ended with ``status`` is worth running again unchanged
    (``retryable`` in result.json): the model API was unavailable, the work was not judged."""
    value = status.value if isinstance(status, Status) else str(status)
    return any(value == s.value for s in RETRYABLE)


def exit_code_for(
    status: Status, *, allow_no_changes: bool = False, signal_name: str | None = None
) -> int:
    """The process exit code for ``status``.

    ``no_changes`` is 0 when the recipe allows it; ``cancelled`` is 130 for SIGINT and
    143 for SIGTERM. Only ``success`` (and allowed ``no_changes``) ever map to 0.
    """
    if status is Status.no_changes and allow_no_changes:
        return 0
    if status is Status.cancelled:
        return SIGNAL_EXIT_CODES.get(signal_name or "SIGINT", 130)
    return EXIT_CODES[status]


# Worse outcomes first: a run reports the worst of its tasks. ``provider_unavailable`` ranks
# below every failure of the work: a run whose other tasks failed would fail again when run
# later, so it exits with that failure; only when nothing but the outage kept it from success
# does it exit 75 (retry later).
_SEVERITY = [
    Status.internal_error,
    Status.cancelled,
    Status.invalid_input,
    Status.provider_error,
    Status.blocked,
    Status.loop_detected,
    Status.budget_exhausted,
    Status.invalid_output,
    Status.verify_failed,
    Status.no_changes,
    Status.provider_unavailable,
    Status.success,
]


def run_outcome(tasks: list[tuple[Status, int]]) -> tuple[Status, int]:
    """The run's status and exit code from its tasks' ``(status, exit code)``: the worst task's.

    Each task is judged with its own ``allow_no_changes`` first, so an allowed ``no_changes``
    (exit 0) ranks below ``success``: a run whose tasks all exit 0 exits 0.
    """
    if not tasks:
        return Status.success, 0

    def rank(task: tuple[Status, int]) -> int:
        status, code = task
        if status is Status.no_changes and code == 0:
            return len(_SEVERITY)
        return _SEVERITY.index(status)

    return min(tasks, key=rank)
