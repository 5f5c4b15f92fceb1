"""agentci's temp folders, and what a killed run left behind.

Every temp folder agentci makes is named ``agentci-<kind>-<pid>-<random>`` in the system temp
dir (:func:`make_temp_dir`). A run killed with SIGKILL cannot clean up; the next run calls
:func:`prune_leftovers`, which deletes the folders whose process is gone (a live run's folders
are left alone) and unregisters the git worktrees (``isolation: worktree``) that lived in them
from their repository, so ``git worktree list`` stays clean: only those entries
(:func:`forget_worktree`), never the repository's other worktrees.

Adding a worktree and unregistering one hold :func:`worktrees_locked` on the repository, so that
two agentci processes working on one repository at once do not trip over each other.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from agentci.errors import InvalidInput

PREFIX = "agentci-"
#: The folder of agentci's lock files in a temp folder (run_locks.py).
LOCKS_NAME = "agentci-locks"
_NAME = re.compile(r"^agentci-(?P<kind>[a-z]+)-(?P<pid>\d+)-")


#: A memory file system for short-lived folders of many small files, when there is one.
SHM = Path("/dev/shm")


def make_temp_dir(kind: str, *, in_memory: bool = False) -> Path:
    """A new temp folder ``agentci-<kind>-<pid>-…`` (see the module docstring); with
    ``in_memory``, in :data:`SHM` when it is a writable folder (creating and removing many
    small files there costs a tenth of what it costs on a disk)."""
    where = str(SHM) if in_memory and os.access(SHM, os.W_OK | os.X_OK) else None
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-{os.getpid()}-", dir=where))


def refuse_temp_inside(workspace: Path) -> None:
    """Refuse a temp folder (``TMPDIR``) inside ``workspace``: agentci keeps its private
    snapshots of the workspace there, which the agent could change and which every snapshot
    would count as the agent's change. Raises :class:`~agentci.errors.InvalidInput`."""
    tmp = Path(os.path.realpath(tempfile.gettempdir()))
    ws = Path(os.path.realpath(workspace))
    if tmp == ws or ws in tmp.parents:
        raise InvalidInput(
            f"the temp folder {tmp} (TMPDIR) is inside the workspace {ws}: agentci keeps its "
            "private snapshots of the workspace in temp folders, where the agent could change "
            "them and where they would count as its change; set TMPDIR to a folder outside the "
            "workspace (in GitHub Actions: ${{ runner.temp }})"
        )


def is_temp_dir_name(name: str) -> bool:
    """Whether ``name`` is the name of an agentci temp folder (``agentci-<kind>-<pid>-…``, or
    :data:`LOCKS_NAME`)."""
    return name == LOCKS_NAME or _NAME.match(name) is not None


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


def worktree_admin(worktree: Path) -> Path | None:
    """The folder git keeps for the linked worktree ``worktree`` (``<repo>/.git/worktrees/<name>``),
    read from its ``.git`` file; None when it has none."""
    with contextlib.suppress(OSError):
        text = (worktree / ".git").read_text("utf-8", "replace")
        if text.startswith("gitdir:"):
            return Path(text[len("gitdir:") :].strip())
    return None


def forget_worktree(admin: Path, inside: Path) -> bool:
    """Unregister one linked worktree of agentci's own from its repository: delete git's
    ``admin`` folder (``<repo>/.git/worktrees/<name>``) only when its ``gitdir`` file points into
    ``inside`` (the agentci temp folder the worktree lived in) and that place is gone. Never a
    repository-wide ``git worktree prune``: that would also drop the user's worktrees that git
    merely cannot see right now (moved by hand, on a disk not mounted), losing their HEAD and
    staged work. True when the entry was removed."""
    admin = Path(os.path.realpath(admin))
    if admin.parent.name != "worktrees" or not (admin.parent.parent / "objects").is_dir():
        return False
    try:
        target = Path((admin / "gitdir").read_text("utf-8", "replace").strip())
    except OSError:
        return False
    target = Path(os.path.realpath(target))
    if not target.is_relative_to(Path(os.path.realpath(inside))) or target.exists():
        return False
    shutil.rmtree(admin, ignore_errors=True)
    return not admin.exists()


@contextlib.contextmanager
def worktrees_locked(common_dir: Path) -> Iterator[None]:
    """Hold the lock of the repository whose git common dir is ``common_dir`` (``.git``) while
    agentci adds a worktree to it or unregisters one of its own, across processes and threads:
    ``git worktree add`` reads every registered worktree's entry, and fails ("failed to read
    .git/worktrees/NAME/commondir") when another agentci run deletes its entry meanwhile. The
    lock is an ``flock`` on the common dir folder itself, so no file is made in the user's
    repository; git takes no such lock, and the kernel drops it however the process ends. Where
    the folder cannot be opened or locked, goes on without it. Not reentrant: a thread that holds
    it must not ask for it again."""
    try:
        fd = os.open(common_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor of this open file releases the lock


def _worktree_admins(folder: Path) -> list[Path]:
    """git's folders for the linked worktrees that live in ``folder`` (one level down)."""
    children = folder.iterdir() if folder.is_dir() else iter(())
    return [a for a in (worktree_admin(child) for child in children) if a is not None]


def prune_leftovers(tmp: Path | None = None) -> list[Path]:
    """Delete the temp folders of agentci runs that no longer exist (in ``tmp``; by default
    the system temp dir and :data:`SHM`); returns them."""
    bases = [Path(tmp)] if tmp else [Path(tempfile.gettempdir()), SHM]
    removed: list[Path] = []
    entries: list[Path] = []
    for base in bases:
        with contextlib.suppress(OSError):
            entries += list(base.iterdir())
    for entry in entries:
        m = _NAME.match(entry.name)
        if not m or _alive(int(m.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_symlink() or not entry.is_dir():
                continue
            admins = _worktree_admins(entry) if m.group("kind") == "worktree" else []
            real = Path(os.path.realpath(entry))
            shutil.rmtree(entry, ignore_errors=True)
            for admin in admins:
                with worktrees_locked(Path(os.path.realpath(admin)).parent.parent):
                    forget_worktree(admin, real)
            removed.append(entry)
    return removed
