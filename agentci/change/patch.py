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
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agentci.change.change import Change, Patch, change_of, patch_text
from agentci.change.overlay import Folders, drop_verify_repos, folders_of, restore_verify_writes
from agentci.change.privgit import split_z
from agentci.change.snapshot import (
    DEFAULT_EXCLUDE,
    Baseline,
    Snapshot,
    capture_baseline,
    carry_over,
    find_repo_dirs,
    record_verify,
    take,
)
from agentci.gitenv import run_git
from agentci.workspace_io import writes

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


_T = TypeVar("_T")


class ChangeTracker:
    """The snapshots of one task and the latest :class:`Change` (snapshots run in a thread).

    The task calls :meth:`agent_started` before each agent session (the workspace may change),
    :meth:`change` when it needs the change (a snapshot only if the agent ran since the last
    one), and :meth:`verify_run` around a verify run whose writes must not count.

    ``activity`` (optional) counts what could have written the workspace (tool calls, hook
    commands, verify runs); when it is the same as at the last snapshot, :meth:`change` reuses
    that snapshot instead of walking the work tree again. The task gives one only when every
    process it started ran in the sandbox (nothing outlives a sandboxed command).

    What agentci itself writes to the workspace (a guard's revert or put-back of a tracked or
    ignored file, verify's put-back, ``--resume``'s earlier patch) is counted in one place,
    :mod:`agentci.workspace_io.writes`: when the count moved since the last snapshot,
    :meth:`change` takes a new one and :meth:`handover` hands nothing over, whichever caller
    wrote.
    """

    def __init__(
        self,
        baseline: Baseline,
        activity: Callable[[], object] | None = None,
        written: int | None = None,
    ) -> None:
        self.baseline = baseline
        # One git step at a time on the private git dir: a step whose caller was cancelled (a
        # signal) goes on in its thread until its git ends; the next step waits for it rather
        # than meeting its index.lock.
        self._git_steps = threading.RLock()
        self._snap: Snapshot | None = None
        self._change: Change | None = None
        self._activity = activity
        # agentci's writes to the workspace as of the last snapshot (workspace_io.writes)
        self._writes = writes.count(baseline.workspace) if written is None else written
        first = baseline.snapshot()  # the baseline, as a snapshot taken then would be
        self._last: tuple[Snapshot, Change] = (first, change_of(baseline, first))
        self._mark: object = activity() if activity is not None else None
        self._folders: Folders | None = None  # the folders before verify ran (verify_starting)

    @classmethod
    async def start(
        cls,
        workspace: Path,
        *,
        exclude: tuple[str, ...],
        deadline: float | None = None,
        activity: Callable[[], object] | None = None,
        previous: Handover | None = None,
    ) -> ChangeTracker:
        """Take the baseline (in a thread); its git calls end by ``deadline`` (monotonic).
        ``previous``: the end of the task before on the same tree, nothing run since: its
        snapshot is the baseline when it fits (:func:`~agentci.change.snapshot.carry_over`)."""
        baseline = None
        if previous is not None:
            if previous.written == writes.count(workspace):  # agentci wrote nothing since
                baseline = carry_over(previous.baseline, previous.snapshot, workspace, exclude)
            if baseline is None:
                previous.baseline.cleanup()
        written = writes.count(workspace)  # before the walk: a write during it counts
        if baseline is None:
            baseline = await asyncio.to_thread(
                capture_baseline, workspace, exclude=exclude, deadline=deadline
            )
        else:
            written = previous.written if previous is not None else written
        baseline.deadline = deadline
        return cls(baseline, activity, written)

    def agent_started(self) -> None:
        """The workspace may change from now on: the next :meth:`change` takes a snapshot
        (unless nothing that could write it ran since the last one, see ``activity``)."""
        self._change = None

    def workspace_changed(self) -> None:
        """The workspace changed in a way :mod:`~agentci.workspace_io.writes` does not count:
        the next :meth:`change` takes a snapshot."""
        self._change = None
        self._mark = None

    async def change(self) -> Change:
        """The change as of the last snapshot, taking one first when the workspace may have
        changed since (the agent ran, or agentci wrote to it: :mod:`~agentci.workspace_io.writes`)."""
        if self._change is None or self._writes != self._written():
            if self._quiet():
                self._snap, self._change = self._last
            else:
                mark = self._activity() if self._activity is not None else None
                written = self._written()
                snap, change = await asyncio.to_thread(self._one_at_a_time, self._take)
                self._snap, self._change = snap, change
                self._last, self._mark, self._writes = (snap, change), mark, written
        assert self._change is not None
        return self._change

    def _written(self) -> int:
        """agentci's own writes to the workspace so far (:mod:`agentci.workspace_io.writes`)."""
        return writes.count(self.baseline.workspace)

    def _quiet(self) -> bool:
        """True when nothing that could write the workspace ran since the last snapshot."""
        return (
            self._activity is not None and self._mark is not None
            and self._activity() == self._mark and self._writes == self._written()
        )  # fmt: skip

    def _one_at_a_time(self, step: Callable[..., _T], *args: object) -> _T:
        """Run ``step(*args)`` (in a worker thread) once no other git step of this tracker
        runs: a thread whose awaiting task was cancelled is waited for, not raced (an explicit
        ``acquire``: tests/change/test_snapshot_cancelled_step.py sees a step wait there)."""
        self._git_steps.acquire()
        try:
            return step(*args)
        finally:
            self._git_steps.release()

    def _take(self) -> tuple[Snapshot, Change]:
        snap = take(self.baseline)
        return snap, change_of(self.baseline, snap)

    async def verify_starting(self) -> None:
        """Verify runs are about to start, on the workspace of the last snapshot: note which
        of its folders hold a ``.git`` (:func:`~agentci.change.overlay.folders_of`), so that
        :meth:`verify_done` deletes one a run makes there."""
        snap = self._snap
        self._folders = None
        if snap is not None:
            self._folders = await asyncio.to_thread(
                self._one_at_a_time, folders_of, self.baseline, snap
            )

    async def verify_done(self) -> list[str]:
        """Verify runs just finished: put back the files they wrote that the patch is made of
        (:func:`~agentci.change.overlay.restore_verify_writes`) and subtract the rest (ignored
        caches, a file that could not be put back). Returns the workspace-relative paths put
        back. The change stays the one of the snapshot taken before verify."""
        before = self._snap
        self._mark = None  # verify wrote: the next change takes a snapshot
        if before is None:
            return []
        return await asyncio.to_thread(self._one_at_a_time, self._verify_done, before)

    def _verify_done(self, before: Snapshot) -> list[str]:
        after = take(self.baseline)
        dropped = drop_verify_repos(self.baseline, before, after, self._folders)
        if dropped:  # the repository's files were never in a snapshot: take one without them
            after = take(self.baseline)
        restored = restore_verify_writes(self.baseline, before, after)
        record_verify(self.baseline, before, after, restored)
        return sorted([*restored, *dropped])

    def settle(self) -> None:
        """A verify attempt is over and what agentci wrote during it (its report, the files it
        set aside and put back, verify's writes put back) left the workspace as the last
        snapshot holds it, verify's own writes subtracted: :meth:`change` keeps that change.
        Not calling it costs a snapshot, never a stale change."""
        self._writes = self._written()

    async def patch(self) -> Patch:
        """The patch of the current change (in a thread)."""
        change = await self.change()
        return await asyncio.to_thread(self._one_at_a_time, patch_text, self.baseline, change)

    def handover(self) -> Handover | None:
        """The last snapshot, for the next task on the same tree to start from; None unless
        it is still what is on disk (nothing that could write ran since it was taken). The
        private git dir then belongs to the handover: no :meth:`cleanup`."""
        if self._snap is None or self._change is None or not self._quiet():
            return None
        return Handover(self.baseline, self._snap, self._writes)

    def cleanup(self) -> None:
        """Delete the private git dir, once a git step still running (cancelled) has ended."""
        with self._git_steps:
            self.baseline.cleanup()


@dataclass
class Handover:
    """The end of one task (its baseline's private git dir and its last snapshot), passed to
    the next task on the same tree."""

    baseline: Baseline
    snapshot: Snapshot
    written: int  # agentci's write count when the snapshot was taken (workspace_io.writes)


def worktree_base(original: Path) -> tuple[str, str]:
    """For ``isolation: worktree``: the commit the agent starts from (``HEAD <id>``) and a short
    description of the original checkout's uncommitted changes ("" when it is clean)."""
    found = find_repo_dirs(Path(original).resolve())
    if found is None:
        return "HEAD", ""
    top, git_dir = found
    head = run_git(["rev-parse", "HEAD"], cwd=top, repo=git_dir).stdout.decode().strip()
    # never inside a submodule: git would run `git status` there, with the submodule's own
    # config and attributes (a clean filter), which agentci does not neutralise
    status = run_git(["status", "--porcelain", "-z", "--no-renames", "--untracked-files=normal",
                      "--ignore-submodules=dirty"], cwd=top, repo=git_dir)  # fmt: skip
    paths = [entry[3:] for entry in split_z(status.stdout)]
    base = f"HEAD {head[:12]}" if head else "HEAD"
    if not paths:
        return base, ""
    shown = ", ".join(paths[:5]) + (f" … and {len(paths) - 5} more" if len(paths) > 5 else "")
    return base, f"{len(paths)} path(s): {shown}"
