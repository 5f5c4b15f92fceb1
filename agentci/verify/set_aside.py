"""The verdict is about the patch: hidden files the agent made are set aside while verify runs.

A file the agent creates where the baseline's ignore rules hide it (a ``conftest.py`` in an
ignored folder, a plugin module, a ``.pth`` in ``.venv``) is never in patch.diff (see
:mod:`agentci.change.ignored`), yet it can change what verify sees. So before each verify run
after the agent, :meth:`SetAside.take` moves every such file into ``.agentci/set-aside-<id>/``
in the workspace (``.agentci`` is never in the patch, read-only to the agent and to verify, and
pytest does not look into dot-folders), and :meth:`SetAside.put_back` moves them back when the
run is over: they are the agent's, not the user's, but agentci never deletes what it cannot
rebuild; the verdict, like the patch, is the one of the change without them.

Left in place: caches the verify command would make again itself (``__pycache__``, ``*.pyc``,
``.pytest_cache`` … :data:`CACHES`), files that were there at the baseline (the user's), and
files that cannot be moved (another filesystem, a folder in the way): those are named in
:attr:`SetAside.left`. A move is a rename, so a file comes back with the same size, times and
inode, and the snapshots still see it as the agent's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from agentci import workspace_io
from agentci.change.baseline import CACHE_PATTERNS, Baseline

#: Files verify makes again by itself: never set aside.
CACHES = (*CACHE_PATTERNS, ".coverage", ".coverage.*", "htmlcov/", "coverage.xml", ".tox/",
          ".nox/")  # fmt: skip
STORE_DIR = ".agentci"
_CACHE_SPEC = pathspec.PathSpec.from_lines("gitignore", CACHES)


def hidden_new_files(b: Baseline, ignored_written: list[str]) -> list[str]:
    """Of the ignored files the agent wrote (workspace-relative), those it created, less caches."""
    pre = b.prefix + "/" if b.prefix else ""
    return sorted(
        p for p in ignored_written if pre + p not in b.ignored_ref and not _CACHE_SPEC.match_file(p)
    )


@dataclass
class SetAside:
    """The files one verify run does not see (workspace-relative) and where they wait."""

    workspace: Path
    store: str = ""  # workspace-relative folder, "" when nothing was moved
    moved: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # could not be moved: "path (why)"

    @classmethod
    def take(cls, b: Baseline, ignored_written: list[str]) -> SetAside:
        """Move the agent's hidden files (see the module docstring) out of verify's sight."""
        aside = cls(b.workspace)
        files = hidden_new_files(b, ignored_written)
        if not files:
            return aside
        aside.store = f"{STORE_DIR}/set-aside-{secrets.token_hex(4)}"
        for rel in files:
            try:
                workspace_io.move(b.workspace, rel, b.workspace, f"{aside.store}/{rel}")
            except workspace_io.UnsafePath as err:
                if not err.missing:
                    aside.left.append(f"{rel} ({err})")
                continue
            aside.moved.append(rel)
        return aside

    def put_back(self) -> list[str]:
        """Move every file back to its place; returns those that could not be (they stay in
        the store). The store's folders go; ``.agentci`` stays (the sandbox mounts it)."""
        stuck = []
        for rel in self.moved:
            try:
                workspace_io.move(self.workspace, f"{self.store}/{rel}", self.workspace, rel,
                                  keep=1)  # fmt: skip
            except workspace_io.UnsafePath:
                stuck.append(rel)
        return stuck
