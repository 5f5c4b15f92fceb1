"""The path guards' reverts across one task (``guards.allowed_paths``, ``forbid_test_edits``).

A change a path guard refuses is reverted (:func:`agentci.verify.guards.revert_refused`), after
each session and once more when the task ends, whatever ended it; each revert is a ``warning``
event (kind ``guard_reverted``). :class:`GuardReverts` remembers every file a guard reverted in
the task: that guard failed, even if the workspace is clean by the end.

In a workspace edited in place (``isolation: none``, pre-commit mode) a file to revert may hold
an edit the user saved while the run went on: each revert first copies the files as they are to
a folder of its own, ``.agentci/reverted/<time>-<pid>-<n>/`` in the workspace (agentci never
deletes it), and its warning says where.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentci.events import types as ev
from agentci.recipe.guards_config import Guards
from agentci.verify.guards import PATH_GUARDS, GuardResult, check_guards, revert_refused

if TYPE_CHECKING:
    from agentci.change.change import Change
    from agentci.change.patch import ChangeTracker

Emit = Callable[[ev.Event], object]


class GuardReverts:
    """Reverts what the path guards refuse, and remembers it for the guard's report."""

    def __init__(self, guards: Guards, emit: Emit) -> None:
        self.guards = guards
        self.emit = emit
        self.reverted: dict[str, list[str]] = {}  # guard → every file it reverted, this task
        self.in_place = False  # the workspace is the user's: keep copies before reverting
        self._reverts = 0

    async def revert(self, tracker: ChangeTracker, change: Change) -> list[GuardResult]:
        """Revert what the path guards refuse; the size guards are measured after."""
        baseline = tracker.baseline
        keep = None
        if self.in_place:
            self._reverts += 1
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            keep = f".agentci/reverted/{stamp}-{os.getpid()}-{self._reverts}"
        results = await asyncio.to_thread(revert_refused, self.guards, baseline, change, keep)
        self._note(results, keep)
        if not any(r.reverted for r in results):
            return results
        # the revert wrote the workspace: the tracker takes a new snapshot (workspace_io.writes)
        after = check_guards(self.guards, await tracker.change())
        sizes = {r.name: r for r in after if r.name not in PATH_GUARDS}
        return [sizes.get(r.name, r) for r in results]

    def _note(self, results: list[GuardResult], keep: str | None = None) -> None:
        """Each revert is a ``warning`` event (kind ``guard_reverted``; where the copies are,
        ``keep``), remembered for the guard's testcase and summary.md."""
        for r in results:
            if r.ignored_restored:  # put back, not a refusal of the change: the guard holds
                files = ", ".join(r.ignored_restored)
                self.emit(
                    ev.WarningEvent(
                        kind="guard_reverted",
                        message=f"guard {r.name} put back {len(r.ignored_restored)} ignored "
                        f"file(s) the agent wrote: {files}",
                    )
                )
            if r.reverted:
                done = self.reverted.setdefault(r.name, [])
                done.extend(p for p in r.reverted if p not in done)
                files = ", ".join(r.reverted)
                self.emit(
                    ev.WarningEvent(
                        kind="guard_reverted",
                        message=f"guard {r.name} reverted {len(r.reverted)} file(s), "
                        f"not in the patch: {files}"
                        + (f" (as they were before the revert: {keep}/)" if keep else ""),
                    )
                )

    def reported(self, result: GuardResult) -> GuardResult:
        """A guard that reverted a file during the task failed, even if it is clean now."""
        done = self.reverted.get(result.name)
        if not done:
            return result
        message = result.message or f"{len(done)} changed file(s) refused: {', '.join(done)}"
        paths = sorted(set(result.paths) | set(done))
        return GuardResult(result.name, False, message, paths, done, result.ignored_restored)


def guard_reason(broken: list[GuardResult]) -> str:
    """Why the broken guards fail the task, one clause each."""
    parts = []
    for g in broken:
        note = " (reverted: not in the patch)" if g.reverted else ""
        parts.append(f"guard {g.name}: {g.message}{note}")
    return "; ".join(parts)
