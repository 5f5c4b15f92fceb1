"""Where a work tree's repository lies, and the commit it has checked out: read from its
``.git`` entries, with one pinned git call for the commit (:mod:`agentci.gitenv`). Kept apart
from :mod:`agentci.change.privgit` so that the pre-commit hook's clean path
(:mod:`agentci.precommit.quick`) asks for the commit without loading the snapshot machinery."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentci.gitenv import run_git


def objects_dir(git_dir: Path) -> Path:
    """The object store of a git dir (a linked worktree's is in its common dir)."""
    common = git_dir / "commondir"
    if common.is_file():
        return (git_dir / common.read_text().strip()).resolve() / "objects"
    return git_dir / "objects"


def dot_git_dir(path: Path) -> Path | None:
    """The git dir a work tree's ``.git`` names (a folder, or a ``gitdir:`` file), or None."""
    dot = path / ".git"
    if dot.is_dir():
        return dot.resolve()
    if dot.is_file():
        try:
            text = dot.read_text(errors="replace").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            return (path / target).resolve() if not target.is_absolute() else target
    return None


def find_repo_dirs(path: Path) -> tuple[Path, Path] | None:
    """(work tree top-level, git dir) of the repository containing ``path``, or None.

    Found by reading ``.git`` entries upwards; no git command runs in the user's repository.
    """
    for folder in [path, *path.parents]:
        git_dir = dot_git_dir(folder)
        if git_dir is not None and (objects_dir(git_dir)).is_dir():
            return folder, git_dir
    return None


def head_commit(workspace: Path) -> str | None:
    """The commit checked out in the repository holding ``workspace`` (None: none); git is
    pinned to that repository (no discovery, its drivers neutralised)."""
    found = find_repo_dirs(Path(workspace).resolve())
    if found is None:
        return None
    top, git_dir = found
    try:
        out = run_git(["rev-parse", "--verify", "-q", "HEAD"], cwd=top, repo=git_dir, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.decode(errors="replace").strip()
    return text if out.returncode == 0 and text else None
