"""Files git opens in the work tree on its own (``.gitignore``, ``.gitattributes``,
``.gitmodules``) must be regular files before a snapshot runs git.

git opens each of them with a plain ``open()``: a named pipe of that name (``mkfifo
.gitattributes``, one shell command under ``yolo``) makes every ``git add`` wait for a writer
that never comes, and a device may do the same. :func:`refuse_blocking_files` looks for them
with ``lstat`` data only (nothing is opened, no link is followed) and raises
:class:`~agentci.errors.GitWouldBlock` naming them: the task ends ``blocked``, its outputs
written. It runs when a snapshot's git call has taken more than a second
(:attr:`~agentci.change.privgit.PrivateGit.on_stall`), so a snapshot that does not wait pays
for no second walk of the workspace. (Every private git call also has a deadline,
:mod:`agentci.change.privgit`, for whatever this does not foresee.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentci.change.baseline import Baseline
from agentci.errors import GitWouldBlock

#: The names git reads in any folder of a work tree while it snapshots it.
GIT_READS = frozenset({".gitignore", ".gitattributes", ".gitmodules"})


def _blocks(mode: int) -> bool:
    """A file whose ``open()`` may wait: not a regular file, folder or link."""
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def blocking_files(b: Baseline) -> list[str]:
    """Work-tree paths named as in :data:`GIT_READS` that are neither regular files, folders nor
    links: in the workspace, and in the folders between the work tree's top and it."""
    return walk_workspace(b)[0]


def walk_workspace(b: Baseline) -> tuple[list[str], list[str]]:
    """(:func:`blocking_files`, the folders below the work tree's top holding a ``.git``: nested
    repositories), from one walk of the workspace that looks at names and the directory
    entries' types only (one ``lstat`` per file named as in :data:`GIT_READS`)."""
    found: list[str] = []
    repos: list[str] = []
    folder = b.work_tree
    for part in Path(b.prefix).parts if b.prefix else ():
        found += _in_folder(b.work_tree, folder)
        folder = folder / part
    skip = {os.fspath(b.workspace / ex.strip("/")) for ex in b.exclude if ex.strip("/")}
    top = os.fspath(b.work_tree)
    stack = [os.fspath(b.workspace)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name == ".git":  # git never walks into an entry of that name
                if here != top:
                    repos.append(os.path.relpath(here, top).replace(os.sep, "/"))
                continue
            if name in GIT_READS:
                try:
                    if _blocks(entry.stat(follow_symlinks=False).st_mode):
                        found.append(os.path.relpath(entry.path, top).replace(os.sep, "/"))
                        continue
                except OSError:
                    continue
            # a folder named as in GIT_READS is walked too: git walks into it like any other
            if entry.is_dir(follow_symlinks=False) and entry.path not in skip:
                stack.append(entry.path)
    return sorted(found), sorted(repos)


def _in_folder(top: Path, folder: Path) -> list[str]:
    out = []
    for name in sorted(GIT_READS):
        try:
            mode = os.lstat(folder / name).st_mode
        except OSError:
            continue
        if _blocks(mode):
            out.append((folder / name).relative_to(top).as_posix())
    return out


def refuse_blocking_files(b: Baseline) -> list[str]:
    """Raise :class:`GitWouldBlock` when :func:`blocking_files` finds any; else return the
    nested repositories :func:`walk_workspace` found."""
    found, repos = walk_workspace(b)
    if found:
        shown = ", ".join(found[:5]) + (f" … and {len(found) - 5} more" if len(found) > 5 else "")
        raise GitWouldBlock(
            f"the workspace has {len(found)} file(s) git reads that are not regular files "
            f"(a named pipe or device): {shown}; git would wait on them for ever, so agentci "
            "cannot snapshot the workspace"
        )
    return repos
