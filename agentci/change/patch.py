"""The patch: the agent's change as a ``git diff`` that ``git apply`` reproduces.

The pieces (see the snapshot model in docs/architecture.md):

* :mod:`agentci.change.privgit` — agentci's private git dir; the user's repository is only
  read (objects through alternates, the index copied once as a stat cache), never written;
* :mod:`agentci.change.snapshot` — the baseline and later snapshots (ignore rules frozen at the
  baseline, submodules inline, what verify wrote subtracted);
* :mod:`agentci.change.change` — the :class:`~agentci.change.change.Change` value and its
  patch text (size-capped).

:class:`ChangeTracker` is what a task uses: it takes as few snapshots as it can, off the event
loop, and hands out the latest :class:`Change`. The plain functions below (:func:`diff_since`,
:func:`changed_files`, :func:`changed_lines`) each take a fresh snapshot; they are for tests and
tools that need one answer.

Patch text is ``str`` decoded with ``surrogateescape``: write it back with
``encoding="utf-8", errors="surrogateescape"`` to get the exact bytes (non-UTF-8 files survive).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.change.change import Change, Patch, change_of, patch_text
from agentci.change.overlay import restore_verify_writes
from agentci.change.privgit import split_z
from agentci.change.snapshot import (
    DEFAULT_EXCLUDE,
    Baseline,
    Snapshot,
    capture_baseline,
    find_repo_dirs,
    record_verify,
    take,
)
from agentci.gitenv import run_git

if TYPE_CHECKING:
    import git

__all__ = [
    "DEFAULT_EXCLUDE",
    "Baseline",
    "Change",
    "ChangeTracker",
    "Patch",
    "capture_baseline",
    "changed_files",
    "changed_lines",
    "current_change",
    "diff_since",
    "find_repo",
    "find_repo_root",
    "worktree_base",
]


def find_repo(path: Path) -> git.Repo | None:
    """The non-bare git repository containing ``path`` (GitPython), or None."""
    # deferred: gitpython takes ~0.1 s to import; only this git step needs it
    import git

    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.bare or repo.working_tree_dir is None:
        return None
    return repo


def find_repo_root(path: Path) -> Path | None:
    """The top-level folder of the git repository containing ``path``, or None."""
    found = find_repo_dirs(Path(path).resolve())
    return found[0] if found else None


def current_change(baseline: Baseline) -> Change:
    """Snapshot the workspace now and return the change since the baseline."""
    return change_of(baseline, take(baseline))


def diff_since(baseline: Baseline) -> str:
    """The patch from the baseline to the workspace as it is now ("" when nothing changed)."""
    return patch_text(baseline, current_change(baseline)).text


def changed_files(baseline: Baseline) -> list[str]:
    """Paths (relative to the workspace, sorted) that differ from the baseline."""
    return current_change(baseline).files


def changed_lines(baseline: Baseline) -> int:
    """Lines added plus lines deleted since the baseline; each binary file counts as 1."""
    return current_change(baseline).lines


class ChangeTracker:
    """The snapshots of one task and the latest :class:`Change` (snapshots run in a thread).

    The task calls :meth:`agent_started` before each agent session (the workspace may change),
    :meth:`change` when it needs the change (a snapshot only if the agent ran since the last
    one), and :meth:`verify_run` around a verify run whose writes must not count.
    """

    def __init__(self, baseline: Baseline) -> None:
        self.baseline = baseline
        self._snap: Snapshot | None = None
        self._change: Change | None = None

    @classmethod
    async def start(
        cls, workspace: Path, *, exclude: tuple[str, ...], deadline: float | None = None
    ) -> ChangeTracker:
        """Take the baseline (in a thread); its git calls end by ``deadline`` (monotonic)."""
        baseline = await asyncio.to_thread(
            capture_baseline, workspace, exclude=exclude, deadline=deadline
        )
        return cls(baseline)

    def agent_started(self) -> None:
        """The workspace may change from now on: the next :meth:`change` takes a snapshot."""
        self._change = None

    def workspace_changed(self) -> None:
        """agentci itself changed the workspace (a guard reverted files)."""
        self._change = None

    async def change(self) -> Change:
        """The change as of the last snapshot, taking one first when the workspace may have
        changed since."""
        if self._change is None:
            self._snap, self._change = await asyncio.to_thread(self._take)
        assert self._change is not None
        return self._change

    def _take(self) -> tuple[Snapshot, Change]:
        snap = take(self.baseline)
        return snap, change_of(self.baseline, snap)

    async def verify_done(self) -> list[str]:
        """Verify runs just finished: put back the files they wrote that the patch is made of
        (:func:`~agentci.change.overlay.restore_verify_writes`) and subtract the rest (ignored
        caches, a file that could not be put back). Returns the workspace-relative paths put
        back. The change stays the one of the snapshot taken before verify."""
        before = self._snap
        if before is None:
            return []
        return await asyncio.to_thread(self._verify_done, before)

    def _verify_done(self, before: Snapshot) -> list[str]:
        after = take(self.baseline)
        restored = restore_verify_writes(self.baseline, before, after)
        record_verify(self.baseline, before, after, restored)
        return restored

    async def patch(self) -> Patch:
        """The patch of the current change (in a thread)."""
        change = await self.change()
        return await asyncio.to_thread(patch_text, self.baseline, change)

    def cleanup(self) -> None:
        """Delete the private git dir."""
        self.baseline.cleanup()


def worktree_base(original: Path) -> tuple[str, str]:
    """For ``isolation: worktree``: the commit the agent starts from (``HEAD <id>``) and a short
    description of the original checkout's uncommitted changes ("" when it is clean)."""
    found = find_repo_dirs(Path(original).resolve())
    if found is None:
        return "HEAD", ""
    top, git_dir = found
    head = run_git(["rev-parse", "HEAD"], cwd=top, repo=git_dir).stdout.decode().strip()
    status = run_git(["status", "--porcelain", "-z", "--no-renames", "--untracked-files=normal"],
                     cwd=top, repo=git_dir)  # fmt: skip
    paths = [entry[3:] for entry in split_z(status.stdout)]
    base = f"HEAD {head[:12]}" if head else "HEAD"
    if not paths:
        return base, ""
    shown = ", ".join(paths[:5]) + (f" … and {len(paths) - 5} more" if len(paths) > 5 else "")
    return base, f"{len(paths)} path(s): {shown}"
