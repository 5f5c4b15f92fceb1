"""Where a command name leads: a read-only command must not be a program of the workspace.

``cat`` is read-only only if it is the system's ``cat``. When the tools' ``PATH`` names a folder
inside the workspace (a ``.venv/bin`` or ``node_modules/.bin`` a job put on it, or a relative
entry such as ``.``), bash may find ``cat``, ``which`` or ``tree`` there first, and the agent
can change what that file does (``write_file`` keeps an executable's mode). So a built-in
read-only command, and each wrapper that runs it (``env``, ``timeout`` …, also when written
with a folder: ``./env cat f``), is looked up the way bash does; one found in the workspace
is not read-only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

#: Read-only commands bash runs itself, without looking at PATH.
BASH_BUILTINS = frozenset(
    {"echo", "printf", "pwd", "test", "[", "true", "false", "type", "cd", "exit", ":"}
)


def workspace_program(
    name: str, search_path: str, bases: Sequence[Path], workspace: Path
) -> Path | None:
    """The program in the workspace that ``name`` would run, or None (a bash builtin, a
    program outside the workspace, or none found). A relative ``PATH`` entry is looked up
    from each folder in ``bases``.

    It runs for every shell command the policy judges (twice for one the scheduler may run
    alongside other reads), so it works on strings: one ``stat`` per candidate and a
    ``realpath`` only for a program found."""
    if name in BASH_BUILTINS or not name:
        return None
    root = os.path.realpath(workspace)
    if "/" in name:  # no PATH lookup: ./env, bin/timeout, /usr/bin/env
        for base in bases:
            path = base / name
            if _runnable(str(path)) and _below(os.path.realpath(path), root):
                return path
        return None
    for entry in search_path.split(os.pathsep):
        if os.path.isabs(entry):
            folders = [entry]
        else:
            folders = [os.path.join(b, entry) if entry else str(b) for b in bases]
        hits = [os.path.join(f, name) for f in folders if _runnable(os.path.join(f, name))]
        inside = [h for h in hits if _below(os.path.realpath(h), root)]
        if inside:
            return Path(inside[0])
        if hits:
            return None
    return None


def _below(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` (also resolved) or inside it."""
    return real == root or real.startswith(root if root.endswith("/") else root + "/")


def _runnable(path: str) -> bool:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK)
