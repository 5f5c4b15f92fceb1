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
from collections.abc import Sequence
from pathlib import Path

from agentci.policy.paths import is_below

#: Read-only commands bash runs itself, without looking at PATH.
BASH_BUILTINS = frozenset(
    {"echo", "printf", "pwd", "test", "[", "true", "false", "type", "cd", "exit", ":"}
)


def workspace_program(
    name: str, search_path: str, bases: Sequence[Path], workspace: Path
) -> Path | None:
    """The program in the workspace that ``name`` would run, or None (a bash builtin, a
    program outside the workspace, or none found). A relative ``PATH`` entry is looked up
    from each folder in ``bases``."""
    if name in BASH_BUILTINS or not name:
        return None
    root = Path(os.path.realpath(workspace))
    if "/" in name:  # no PATH lookup: ./env, bin/timeout, /usr/bin/env
        for base in bases:
            path = base / name
            if _runnable(path) and is_below(Path(os.path.realpath(path)), root):
                return path
        return None
    for entry in search_path.split(os.pathsep):
        folders = [Path(entry)] if os.path.isabs(entry) else [b / (entry or ".") for b in bases]
        hits = [f / name for f in folders if _runnable(f / name)]
        inside = [h for h in hits if is_below(Path(os.path.realpath(h)), root)]
        if inside:
            return inside[0]
        if hits:
            return None
    return None


def _runnable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except OSError:
        return False
