"""One attempt's verify on the patch alone, then the ``weakened_tests`` checks.

While the attempt's verify runs, the files the agent wrote that the ignore rules hide from the
patch, the repositories it made, and every other ignored file new since the baseline (what an
earlier verify run wrote) are set aside (:mod:`agentci.verify.set_aside`): the verdict is the
one of the change without them. When such files existed and verify failed, the same run is made once more with
them in place: passing only with them is a weakening the ``weakened_tests`` guard reports
(:class:`~agentci.verify.weakened_guard.WeakenedGuard`), which then checks the attempt against
the baseline and this attempt's full-suite run (none when only the failing tests ran first).

After each run, the files it wrote that the patch is made of are put back as they were
(:meth:`~agentci.change.patch.ChangeTracker.verify_done`, as :attr:`VerifyRuns.after_run`):
the next run and the agent see the baseline plus the agent's change. :class:`AttemptFiles` says which, and which of the agent's
hidden files could not be set aside (the verdict then is not the patch's: the task fails).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentci.events import types as ev
from agentci.run.verify_runs import VerifyRuns
from agentci.verify.set_aside import SetAside
from agentci.verify.weakened_guard import WeakenedGuard

if TYPE_CHECKING:
    from agentci.change.patch import ChangeTracker

Emit = Callable[[ev.Event], object]


@dataclass
class AttemptFiles:
    """What one attempt's verify did to the workspace beyond running."""

    restored: list[str] = field(default_factory=list)  # verify wrote them: put back as before
    not_set_aside: list[str] = field(default_factory=list)  # the agent's, seen by verify: "p (why)"


async def verify_attempt(
    runs: VerifyRuns,
    weakened: WeakenedGuard,
    tracker: ChangeTracker,
    emit: Emit,
    *,
    attempt: int,
    last: bool,
    changed: list[str],
) -> AttemptFiles:
    """Run attempt ``attempt``'s verify (:meth:`VerifyRuns.attempt_runs`) with the agent's
    hidden files set aside, put them back, put back what verify wrote, and let ``weakened``
    judge the attempt."""
    baseline, change = tracker.baseline, await tracker.change()
    at_start = {baseline.rel(p) for p in baseline.nested_at_start}
    repos = [r for r in change.nested_repos if r not in at_start]  # the agent made them
    aside = await asyncio.to_thread(
        SetAside.take, baseline, change.ignored_written, change.ignored_new, repos
    )
    if aside.moved or aside.left or aside.restored:
        _note_set_aside(aside, weakened, emit)
    full_before = runs.full_run
    await tracker.verify_starting()  # which folders hold a .git: one a run makes is deleted
    runs.after_run = tracker.verify_done
    try:
        await runs.attempt_runs(attempt, last, changed)
    finally:
        stuck = await asyncio.to_thread(aside.put_back)
        if stuck:
            emit(ev.Error(kind="files_set_aside", message="could not put back "
                          f"{len(stuck)} file(s), left in {aside.store}: "
                          f"{', '.join(stuck)}"))  # fmt: skip
        tracker.settle()  # the change stays the one taken before verify
    full = runs.full_run if runs.full_run is not full_before else None
    hidden: list[str] = []
    decided = runs.last_run
    agents = [*aside.restored, *aside.moved]
    if agents and decided is not None and not decided.passed and weakened.active:
        # the same run with the hidden files: does it pass?
        again = await runs.again(
            f"attempt{attempt}-with-hidden", None if decided is full else runs.select
        )
        tracker.settle()  # its writes are put back or subtracted as well
        hidden = agents if again.passed else []
    restored = runs.restored
    await asyncio.to_thread(
        weakened.observe, baseline, change.files, runs.baseline_run, full, hidden
    )
    if restored:
        emit(ev.WarningEvent(kind="verify_writes_restored", message=(
            f"verify changed {len(restored)} file(s) the patch is made of; put back as they "
            f"were before it ran: {', '.join(restored)}")))  # fmt: skip
    return AttemptFiles(restored=restored, not_set_aside=list(aside.left))


def _note_set_aside(aside: SetAside, weakened: WeakenedGuard, emit: Emit) -> None:
    weakened.note_set_aside([*aside.restored, *aside.moved], aside.left)
    message = (
        f"{len(aside.moved)} file(s) the agent made that the ignore rules hide from the "
        f"patch (or repositories: name/) were set aside while verify ran: "
        f"{', '.join(aside.moved)}"
    )
    if aside.restored:
        message += (
            f"; {len(aside.restored)} ignored file(s) the agent changed had their baseline "
            f"content while verify ran: {', '.join(aside.restored)}"
        )
    if aside.left:
        message += f"; could not set aside: {', '.join(aside.left)}"
    emit(ev.Error(kind="files_set_aside", message=message))
