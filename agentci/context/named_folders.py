"""The folders whose project context files a task loads: the workspace root, then every folder
on the way to each path the prompt names (standard library only: the pre-commit hook's clean
path, :mod:`agentci.precommit.quick`, asks the run's own rule whether a file would be loaded)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from agentci.errors import ToolFailure
from agentci.policy.paths import resolve

#: Paths of the prompt that are followed down to their folders (the rest are ignored).
MAX_NAMED_PATHS = 32

# A word of path characters; it names a path when it holds a / or a . (`src/app.py`, src/app/,
# ./docs/x.md; quotes and backticks stripped). One character class, so a search is linear in
# the prompt: a pattern that must find a [/.] inside the word is quadratic on a long word.
_WORD = re.compile(r"[\w./@+-]+")


def named_paths(prompt: str) -> list[str]:
    """Path-like words of ``prompt``, in order, without duplicates (at most MAX_NAMED_PATHS)."""
    seen: list[str] = []
    for word in _WORD.findall(prompt):
        if "/" not in word and "." not in word:
            continue
        word = word.rstrip(".").removeprefix("./")
        if word.strip("./") and word not in seen:
            seen.append(word)
        if len(seen) >= MAX_NAMED_PATHS:
            break
    return seen


def context_folders(workspace: Path, prompt: str) -> list[str]:
    """Workspace-relative folders to look in, in order: the root (``""``), then each named
    path's folders from the root down."""
    folders: list[str] = [""]
    for word in named_paths(prompt):
        try:
            target = resolve(workspace, word)
        except ToolFailure:
            continue
        if not target.real.exists() or target.rel == ".":
            continue
        rel = PurePosixPath(target.rel)
        parts = rel.parts if target.real.is_dir() else rel.parts[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in folders:
                folders.append(folder)
    return folders
