"""How many times agentci itself has changed files below a folder (this process).

Every write, delete or move of :mod:`~agentci.workspace_io.changing` counts one for its root,
and so does a git call of agentci that writes a work tree (a guard's ``git restore``, verify's
put-back, the earlier patch of ``--resume``: they call :func:`note`). The change tracker
(:class:`agentci.change.patch.ChangeTracker`) compares :func:`count` of its workspace with the
one at its last snapshot: when it moved, that snapshot is no longer what is on disk, so it is
neither reused nor handed to the next task. A write below a folder counts for every folder it
is in or that is in it (a work tree and the workspace inside it); a root given as a descriptor
counts for every folder. Counting too much costs a snapshot, never a stale one.
"""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

_counter = itertools.count(1)
_lock = threading.Lock()
_last: dict[str, int] = {}  # resolved root ("/" for a descriptor) -> number of its last write


def note(root: Path | str | int) -> None:
    """agentci is about to change files below ``root`` (a folder, or a descriptor of one)."""
    key = "/" if isinstance(root, int) else os.path.realpath(root)
    with _lock:
        _last[key] = next(_counter)


def count(folder: Path | str) -> int:
    """The number of the last :func:`note` that may have changed a file below ``folder`` (0:
    none yet)."""
    here = os.path.realpath(folder)
    with _lock:
        return max((n for key, n in _last.items() if _overlap(key, here)), default=0)


def _overlap(a: str, b: str) -> bool:
    """True when one of two resolved folders is the other or inside it."""
    return a == b or b.startswith(a.rstrip("/") + "/") or a.startswith(b.rstrip("/") + "/")
