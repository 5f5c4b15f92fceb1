"""The verdict is about the patch: hidden files the agent made are set aside while verify runs.

A file the agent creates where the baseline's ignore rules hide it (a ``conftest.py`` in an
ignored folder, a plugin module, a ``.pth`` in ``.venv``) is never in patch.diff (see
:mod:`agentci.change.ignored`), yet it can change what verify sees. So before each verify run
after the agent, :meth:`SetAside.take` moves every such file into ``.agentci/set-aside-<id>/``
in the workspace (``.agentci`` is never in the patch, read-only to the agent and to verify, and
pytest does not look into dot-folders), and :meth:`SetAside.put_back` moves them back when the
run is over: they are the agent's, not the user's, but agentci never deletes what it cannot
rebuild; the verdict, like the patch, is the one of the change without them.

Left in place: caches the verify command would make again itself (``.pytest_cache``,
``.coverage`` … :data:`CACHES`), files that were there at the baseline (the user's), and
files that cannot be moved (another filesystem, a folder in the way): those are named in
:attr:`SetAside.left`. A move is a rename, so a file comes back with the same size, times and
inode, and the snapshots still see it as the agent's.

An ignored file that was there at the baseline and that the agent changed (a git-ignored
``local_settings.py`` the suite imports) would decide the verdict the same way. When the
baseline kept a copy of it (:mod:`agentci.verify.kept`: with ``allowed_paths``, or with
``weakened_tests`` on or ``report``), the agent's version is moved into the store and the
baseline's copy written in its place while verify runs (:attr:`SetAside.restored`); after the
run the copy goes and the agent's version comes back, so the workspace is as the agent left it.
One that was not kept (too large) stays, named in :attr:`SetAside.left`.

A git repository the agent made inside the workspace (a folder holding a ``.git``) is never in
the patch either (a snapshot lists it as one entry and never stores its files): it is moved
aside whole, like a hidden file, and named with them (:attr:`SetAside.moved`, ``lib/``).

Every other ignored file that appeared since the baseline is set aside too, whoever wrote it:
what an earlier verify run wrote (a test module that writes the fix into ``.pytest_cache/``
for the code to import), and the caches above when they are new. Those are moved quietly
(:attr:`SetAside.quiet`: not the agent's, never a finding); a cache the verify command makes
again costs it one rebuild. Ignored files that were there at the baseline (the user's, what
setup and the baseline verify made) stay, so do the files of a scan cut short.

Bytecode is not a cache verify needs (verify writes none: ``PYTHONDONTWRITEBYTECODE``, and the
agent's tools write theirs outside the workspace, ``PYTHONPYCACHEPREFIX``), while Python
imports a lone ``.pyc``: so a new file under ``__pycache__/`` and a new ``*.pyc`` / ``*.pyo``
with no ``.py`` next to it are set aside too (:func:`is_planted_bytecode`).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from agentci import workspace_io
from agentci.change.baseline import CACHE_PATTERNS, Baseline
from agentci.verify.kept import read_kept

#: Files verify makes again by itself: never set aside.
CACHES = (*CACHE_PATTERNS, ".coverage", ".coverage.*", "htmlcov/", "coverage.xml", ".tox/",
          ".nox/")  # fmt: skip
STORE_DIR = ".agentci"
_CACHE_SPEC = pathspec.PathSpec.from_lines("gitignore", CACHES)


def is_planted_bytecode(workspace: Path, rel: str) -> bool:
    """``rel`` is under a ``__pycache__`` folder, or a ``.pyc``/``.pyo`` with no ``.py`` source
    beside it (Python would import it as the module)."""
    if "__pycache__" in rel.split("/")[:-1]:
        return True
    if not rel.endswith((".pyc", ".pyo")):
        return False
    return not (workspace / rel[:-1]).is_file()


def hidden_new_files(b: Baseline, ignored_written: list[str]) -> list[str]:
    """Of the ignored files the agent wrote (workspace-relative), those it created, less caches
    (bytecode only when a source is beside it)."""
    pre = b.prefix + "/" if b.prefix else ""
    return sorted(
        p
        for p in ignored_written
        if pre + p not in b.ignored_ref
        and (not _CACHE_SPEC.match_file(p) or is_planted_bytecode(b.workspace, p))
    )


def changed_kept_files(b: Baseline, ignored_written: list[str]) -> list[str]:
    """Of the ignored files the agent wrote, those that were there at the baseline (less
    caches)."""
    pre = b.prefix + "/" if b.prefix else ""
    return sorted(
        p for p in ignored_written if pre + p in b.ignored_ref and not _CACHE_SPEC.match_file(p)
    )


@dataclass
class SetAside:
    """The files one verify run does not see (workspace-relative) and where they wait."""

    workspace: Path
    store: str = ""  # workspace-relative folder, "" when nothing was moved
    moved: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # could not be moved: "path (why)"
    restored: list[str] = field(default_factory=list)  # the baseline's copy stands in for these
    quiet: list[str] = field(default_factory=list)  # new since the baseline, not the agent's own

    @classmethod
    def take(
        cls,
        b: Baseline,
        ignored_written: list[str],
        ignored_new: Sequence[str] = (),
        repos: Sequence[str] = (),
    ) -> SetAside:
        """Move the agent's hidden files and ``repos`` (the repositories it made), and the
        other ignored files new since the baseline (``ignored_new``), out of verify's sight
        (see the module docstring). Paths are workspace-relative."""
        aside = cls(b.workspace)
        inside = tuple(f"{r}/" for r in repos)  # a repository moves whole
        files = [p for p in hidden_new_files(b, ignored_written) if not p.startswith(inside)]
        changed = changed_kept_files(b, ignored_written)
        others = [p for p in ignored_new if p not in files and not p.startswith(inside)]
        if not files and not changed and not repos and not others:
            return aside
        aside.store = f"{STORE_DIR}/set-aside-{secrets.token_hex(4)}"
        for rel in changed:
            if rel not in b.kept:
                aside.left.append(f"{rel} (there at the baseline, too large to keep a copy)")
                continue
            try:
                data = read_kept(b, rel)
                workspace_io.move(b.workspace, rel, b.workspace, f"{aside.store}/{rel}")
            except (workspace_io.UnsafePath, OSError) as err:
                aside.left.append(f"{rel} ({err})")
                continue
            # should the write fail, the file is absent while verify runs: still not the agent's
            with contextlib.suppress(workspace_io.UnsafePath, OSError):
                workspace_io.write_bytes(b.workspace, rel, data, b.kept[rel])
            aside.restored.append(rel)
        # the agent's files, then its repositories (named with a trailing slash)
        for rel, shown in [(f, f) for f in files] + [(r, f"{r}/") for r in repos]:
            try:
                workspace_io.move(b.workspace, rel, b.workspace, f"{aside.store}/{rel}")
            except workspace_io.UnsafePath as err:
                if not err.missing:
                    aside.left.append(f"{shown} ({err})")
                continue
            aside.moved.append(shown)
        for rel in others:
            with contextlib.suppress(workspace_io.UnsafePath):  # gone, or cannot be: as before
                workspace_io.move(b.workspace, rel, b.workspace, f"{aside.store}/{rel}")
                aside.quiet.append(rel)
        return aside

    def put_back(self) -> list[str]:
        """Move every file back to its place; returns those that could not be (they stay in
        the store). The store's folders go; ``.agentci`` stays (the sandbox mounts it)."""
        stuck = []
        for rel in self.restored:
            with contextlib.suppress(workspace_io.UnsafePath, OSError):
                workspace_io.unlink(self.workspace, rel)
            try:
                workspace_io.move(self.workspace, f"{self.store}/{rel}", self.workspace, rel,
                                  keep=1)  # fmt: skip
            except workspace_io.UnsafePath:
                stuck.append(rel)
        for name in [*self.moved, *self.quiet]:
            rel = name.rstrip("/")
            try:
                workspace_io.move(self.workspace, f"{self.store}/{rel}", self.workspace, rel,
                                  keep=1)  # fmt: skip
            except workspace_io.UnsafePath:
                stuck.append(rel)
        return stuck
