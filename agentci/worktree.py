"""The temporary git worktree of ``isolation: worktree`` (:mod:`agentci.workspace`): added,
removed and moved aside under locks, and the git steps of making a workspace.

Adding the worktree (its files are checked out after) and unregistering it hold a lock on the
repository (:func:`~agentci.tempdirs.worktrees_locked`), so agentci runs and batch tasks on one
repository at once do not make each other's ``git worktree add`` fail; should git still lose a
race with a process that takes no lock (another worktree's entry, or the ``worktrees`` folder,
went away while it ran), the add is tried again, at most :data:`ADD_TRIES` times; any other
failure is reported at once. :meth:`Worktree.remove` is ``git worktree remove`` of that
worktree alone; never ``git worktree prune``, which would also drop the user's own worktrees
that git cannot see at the moment, such as one moved by hand.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.gitenv import run_git
from agentci.tempdirs import forget_worktree, make_temp_dir, worktree_admin, worktrees_locked

_IDENTITY = ("-c", "user.name=agentci", "-c", "user.email=agentci@localhost")

#: Held while git adds a worktree or one is unregistered: tasks make and remove theirs in worker
#: threads, and ``git worktree add`` reads every registered worktree's entry (one half deleted
#: made it fail). Other processes are kept out by :func:`worktrees_locked`, taken after it.
_WORKTREES = threading.Lock()

#: What ``git worktree add`` says when another process changed the repository's worktrees
#: while it ran (one that takes no lock: an older agentci, the user's own ``git worktree
#: remove`` or ``prune``): a file of another worktree's entry went away between git seeing it
#: and reading it (git's ``get_common_dir_noenv``: ``commondir``; ``is_worktree_locked``:
#: ``locked``), or the ``worktrees`` folder itself went away (``remove`` and ``prune`` delete
#: it once it is empty) between git making it and making its entry in it. Any other failure
#: is a real one and is not tried again.
_RACED = re.compile(
    r"fatal: failed to read '?[^\n]*/worktrees/[^/\n]+/(?:commondir|locked)"
    r"|fatal: could not create (?:leading directories|directory) of "
    r"'[^'\n]*/worktrees/[^'\n]*': No such file or directory"
)
#: How often ``git worktree add`` is tried when it lost such a race (a short pause between).
ADD_TRIES = 3


def git_step(args: list[str], cwd: Path, repo: Path | None = None) -> None:
    """agentci's own git (:mod:`agentci.gitenv`) making a workspace, as author ``agentci``; a
    failure is the user's to fix (:class:`~agentci.errors.InvalidInput`)."""
    try:
        proc = run_git([*_IDENTITY, *args], cwd=cwd, repo=repo)
    except FileNotFoundError as exc:
        raise InvalidInput("git is not installed or not on PATH; agentci needs it") from exc
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        raise InvalidInput(f"git {args[0]} in {cwd} failed: {err}")


@contextmanager
def _locked(common_dir: Path) -> Iterator[None]:
    """This process's lock, then the repository's (other processes)."""
    with _WORKTREES, worktrees_locked(common_dir):
        yield


@dataclass
class Worktree:
    """A worktree agentci added at :attr:`path`, in its temp folder :attr:`tmp`, of the
    repository whose top level is :attr:`top` (git dir :attr:`git_dir`, common dir
    :attr:`common`)."""

    top: Path
    git_dir: Path | None
    common: Path
    tmp: Path
    path: Path
    admin: Path | None  # git's entry for it in the repository

    @classmethod
    def add(cls, top: Path, git_dir: Path | None, common: Path, commit: str) -> Worktree:
        """A new worktree of ``commit`` in a new temp folder (:func:`_add`); what a failure
        left is removed."""
        tmp = make_temp_dir("worktree")
        wt = tmp / (top.name or "worktree")
        try:
            _add(top, git_dir, common, wt, commit)
        except BaseException:
            half = worktree_admin(wt)
            shutil.rmtree(tmp, ignore_errors=True)
            if half is not None:
                with _locked(common):
                    forget_worktree(half, tmp)
            raise
        return cls(top, git_dir, common, tmp, wt, worktree_admin(wt))

    def remove(self) -> None:
        """The files, then git's entry for this worktree alone (no prune): no git process."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        with _locked(self.common):
            if self.admin is not None and forget_worktree(self.admin, self.tmp):
                return
            run_git(["worktree", "remove", "--force", str(self.path)], cwd=self.top,
                    repo=self.git_dir)  # fmt: skip
            shutil.rmtree(self.tmp, ignore_errors=True)
            if self.admin is not None:  # `remove` failed: unregister this worktree alone
                forget_worktree(self.admin, self.tmp)

    def move(self, folder: Path) -> None:
        """``git worktree move`` into the new ``folder`` (same name), its temp folder removed."""
        folder.mkdir()
        with _locked(self.common):
            run_git(["worktree", "move", str(self.path), str(folder / self.path.name)],
                    cwd=self.top, repo=self.git_dir)  # fmt: skip
        shutil.rmtree(self.tmp, ignore_errors=True)


def _add(top: Path, git_dir: Path | None, common: Path, wt: Path, commit: str) -> None:
    """``git worktree add --no-checkout`` of ``commit`` at ``wt`` under the locks (up to
    :data:`ADD_TRIES` times when it lost a race with a process that takes no lock:
    :data:`_RACED`), then its files checked out after the locks are released, by the
    ``git reset --hard`` that ``worktree add`` itself runs: the locks guard the repository's
    list of worktrees, and the tasks of a batch check out their own worktrees at the same time
    (on a large repository the checkout is most of the add, seconds a task). ``common`` is the
    git common dir."""
    for attempt in range(1, ADD_TRIES + 1):
        with _locked(common):
            try:
                git_step(["worktree", "add", "-q", "--no-checkout", "--detach", str(wt), commit],
                         top, git_dir)  # fmt: skip
                break
            except InvalidInput as err:
                if attempt == ADD_TRIES or not _RACED.search(str(err)):
                    raise
                _forget_half(wt)
        time.sleep(0.05 * attempt)  # the other process's change is done by then
    admin = worktree_admin(wt)
    if admin is None:
        raise InvalidInput(f"git worktree add in {top} made no worktree at {wt}")
    git_step(["reset", "-q", "--hard", "--no-recurse-submodules"], wt, admin)


def _forget_half(wt: Path) -> None:
    """Remove what a failed ``git worktree add`` at ``wt`` left (its folder, its entry)."""
    half = worktree_admin(wt)
    shutil.rmtree(wt, ignore_errors=True)
    if half is not None:
        forget_worktree(half, wt.parent)
