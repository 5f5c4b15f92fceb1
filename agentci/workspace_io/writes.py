"""How many times agentci itself has changed workspace files (this process).

Every write, delete or move of :mod:`~agentci.workspace_io.changing` counts one, and so does a
git call of agentci that writes a work tree (a guard's ``git restore``, verify's put-back, the
earlier patch of ``--resume``: they call :func:`note`). The change tracker
(:class:`agentci.change.patch.ChangeTracker`) compares the count with the one at its last
snapshot: when it moved, that snapshot is no longer what is on disk, so it is neither reused nor
handed to the next task. One counter for every root (a batch's other task counts too): a move
costs a snapshot at most, never a stale one.
"""

from __future__ import annotations

import itertools

_counter = itertools.count(1)
_last = 0


def note() -> None:
    """agentci is about to change files of a workspace."""
    global _last
    _last = next(_counter)  # next() of a count is atomic: threads never lose one


def count() -> int:
    """The number of the last :func:`note` (0: none yet)."""
    return _last
