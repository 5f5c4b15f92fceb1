"""agentci's temp folders, and what a killed run left behind.

Every temp folder agentci makes is named ``agentci-<kind>-<pid>-<random>`` in the system temp
dir (:func:`make_temp_dir`). A run killed with SIGKILL cannot clean up; the next run calls
:func:`prune_leftovers`, which deletes the folders whose process is gone (a live run's folders
are left alone) and unregisters the git worktrees (``isolation: worktree``) that lived in them
from their repository, so ``git worktree list`` stays clean.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from agentci.gitenv import run_git

PREFIX = "agentci-"
_NAME = re.compile(r"^agentci-(?P<kind>[a-z]+)-(?P<pid>\d+)-")


def make_temp_dir(kind: str) -> Path:
    """A new temp folder ``agentci-<kind>-<pid>-…`` (see the module docstring)."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-{os.getpid()}-"))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _worktree_repos(folder: Path) -> set[Path]:
    """The repositories whose linked worktrees live in ``folder`` (one level down)."""
    repos: set[Path] = set()
    for child in folder.iterdir() if folder.is_dir() else []:
        dot = child / ".git"
        with contextlib.suppress(OSError):
            if dot.is_file() and dot.read_text().startswith("gitdir:"):
                admin = Path(dot.read_text()[len("gitdir:") :].strip())
                common = admin.parent.parent  # <repo>/.git/worktrees/<name>
                if common.name != "" and (common / "objects").is_dir():
                    repos.add(common)
    return repos


def prune_leftovers(tmp: Path | None = None) -> list[Path]:
    """Delete the temp folders of agentci runs that no longer exist; returns them."""
    base = Path(tmp or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = _NAME.match(entry.name)
        if not m or _alive(int(m.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_symlink() or not entry.is_dir():
                continue
            repos = _worktree_repos(entry) if m.group("kind") == "worktree" else set()
            shutil.rmtree(entry, ignore_errors=True)
            for git_dir in repos:
                run_git(["worktree", "prune"], cwd=git_dir, extra_env={"GIT_DIR": str(git_dir)})
            removed.append(entry)
    return removed
