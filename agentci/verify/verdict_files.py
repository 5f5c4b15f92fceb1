"""What the model and the report are told when verify could not judge the patch alone.

Two cases (see docs/verify.md, "The verdict is about the patch"): a verify run changed files
the patch is made of, and agentci put them back as they were before it ran (the model is told,
so it does not count on what its tests wrote); and an ignored file the agent changed could not
be set aside while verify ran (too large for the baseline's copy, or it could not be moved), so
verify saw the agent's version, which the patch does not carry: the task cannot end in
``success`` while it stays changed. And when the workspace holds more ignored files than
agentci fingerprints (:func:`~agentci.change.ignored.scan_limit`), a change to one past the
limit is neither seen nor set aside: a verify that passes cannot show that the patch alone
passes, so such a task does not end in ``success`` either (:func:`scan_truncated_reason`).
"""

from __future__ import annotations

from agentci.change.ignored import SCAN_LIMIT_ENV, scan_limit

SHOWN = 10


def _names(items: list[str]) -> str:
    return ", ".join(items[:SHOWN]) + (f" … ({len(items)} in all)" if len(items) > SHOWN else "")


def restored_feedback(restored: list[str]) -> str:
    """The note for the model: verify changed these files and they were put back."""
    return (
        f"Verify changed {len(restored)} file(s) that the patch is made of; they were put back "
        f"as they were before verify ran (only your own changes count): {_names(restored)}"
    )


def not_set_aside_feedback(left: list[str]) -> str:
    """The note for the model: its changes to these ignored files decide the verdict."""
    return (
        f"You changed {len(left)} file(s) that the repository's ignore rules hide from the "
        f"patch, and they could not be set aside while verify ran: {_names(left)}. The verdict "
        "must be about the patch: put them back as they were (or make the change in files the "
        "patch carries); while they stay changed the task cannot succeed."
    )


def not_set_aside_reason(left: list[str]) -> str:
    """The task's reason when such files are still changed after the last attempt."""
    return (
        f"verify could not judge the patch alone: {len(left)} ignored file(s) the agent changed "
        f"could not be set aside while it ran: {_names(left)}"
    )


def scan_truncated_reason() -> str:
    """The task's reason when verify passed but the ignored files were not all fingerprinted."""
    return (
        "verify could not judge the patch alone: the workspace has more ignored files than "
        f"agentci fingerprints ({scan_limit()}; {SCAN_LIMIT_ENV} sets it), so a change the agent "
        "made to one past them would be neither seen nor set aside while verify ran"
    )
