"""Two runs at once: the process-lifetime locks on an output folder and on a workspace.

:func:`~agentci.reports.outdir.prepare_out_dir` takes an exclusive lock on the output folder (and
:func:`lock_workspace` one on a workspace the agent edits in place) for the life of the process.
A second run refuses at once with ``invalid_input`` (exit 2) naming the other run's pid; it does
not wait. Moving the old outputs aside takes the lock of ``<dir>.prev`` too (held for the rest
of the run): a run whose ``<dir>.prev`` is another live run's output folder refuses the same way
rather than deleting the folder that run is writing into. The locks are released by the kernel
when the process ends, however it ends. A run removes its lock files as it exits, and the files
of runs that were killed (no process holds them) are removed by the next run, so the folders
hold a few files per run in progress, not per run ever made.

The workspace lock is per repository, not per folder: it is taken on the top-level folder of the
git repository holding the workspace (:func:`workspace_root`; the folder itself outside git), so
a run on ``sub/`` and a run on the repository root refuse each other, and a *shared* lock is taken
on every folder above that one, so a run on an outer repository and a run on a repository nested
in it (a submodule, a clone inside it) refuse each other too, while two runs on two repositories
side by side do not. A linked git worktree is a tree of its own: runs on two worktrees of one
repository do not exclude each other (unless one lies inside the other). Every lock lives
in the fixed folder ``/tmp/agentci-locks`` (the temp folder only where there is no ``/tmp``), never
in ``$TMPDIR`` and never in the user's folders: two runs started with different ``TMPDIR`` (each
job's own ``runner.temp``) still see each other's lock, on a workspace and on an output folder.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import os
import tempfile
from pathlib import Path

from agentci.change.repo_dirs import find_repo_dirs
from agentci.errors import InvalidInput
from agentci.tempdirs import LOCKS_NAME

_held: dict[str, int] = {}  # lock file → open descriptor (held until the process exits)
_owner = 0  # the pid that took them (a forked child inherits the dict, not the locks' files)
_swept: dict[str, int] = {}  # lock folder → the pid that swept it (once per process is enough)
#: The locks' folder: fixed, so that a run's TMPDIR does not hide its lock from another.
FIXED_LOCKS = Path("/tmp") / LOCKS_NAME
#: What an output folder's lock is named for.
OUT = "outputs.dir / --out"


def _lock_folder() -> Path:
    """:data:`FIXED_LOCKS` where ``/tmp`` exists, else ``<tmp>/agentci-locks``."""
    if FIXED_LOCKS.parent.is_dir():
        folder = FIXED_LOCKS
    else:
        folder = Path(tempfile.gettempdir()) / LOCKS_NAME
    if not folder.is_dir():
        folder.mkdir(exist_ok=True)
        with contextlib.suppress(OSError):  # shared by every user's runs, like /tmp itself
            folder.chmod(0o1777)
    return folder


def _open_locked(lock: Path, shared: bool = False) -> int | None:
    """A descriptor of ``lock`` holding its exclusive (``shared``: shared) lock, or None when
    another process holds it. A file that was removed (or replaced) between the open and the
    lock is opened again: a lock file is only ever removed by a process that holds its lock
    exclusively."""
    while True:
        # the lock folder is shared by every user's runs: a lock file another user made opens
        # read-only (flock needs no write access; its holder's pid is then not written)
        flags = os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(lock, os.O_RDWR | flags, 0o644)
        except PermissionError:
            fd = os.open(lock, os.O_RDONLY | flags, 0o644)
        with contextlib.suppress(OSError):  # readable by the others whatever the umask
            os.fchmod(fd, 0o644)
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _sweep(folder: Path) -> None:
    """Remove the lock files no process holds (left by runs that were killed)."""
    for stale in folder.glob("*.lock"):
        if str(stale) in _held:
            continue
        with contextlib.suppress(OSError):
            fd = os.open(stale, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.path.samestat(os.fstat(fd), os.lstat(stale)):
                    stale.unlink()
            finally:
                os.close(fd)


def _drop(lock: str) -> None:
    """Give up one lock of this process, removing its file when no other process holds it."""
    fd = _held.pop(lock)
    with contextlib.suppress(OSError):  # a shared lock another run also holds stays
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.unlink(lock)
    with contextlib.suppress(OSError):
        os.close(fd)


@atexit.register
def _release() -> None:
    """Remove this process's lock files (still holding them) as it exits; the kernel releases
    the locks. A killed run's files are removed by the next run's :func:`_sweep`."""
    if os.getpid() != _owner:
        return  # a forked child: the locks are its parent's
    for lock in list(_held):
        _drop(lock)


def lock_file(what: str, path: Path) -> Path:
    """The file of the lock of ``what`` (``workspace``, :data:`OUT`) on ``path``."""
    key = hashlib.sha256(f"{what}:{path}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return _lock_folder() / f"{key}.lock"


def take_lock(
    what: str,
    path: Path,
    hint: str,
    *,
    shared: bool = False,
    message: str = "",
) -> None:
    """Take the process-lifetime lock for ``path`` (``shared``: a shared one) in
    :func:`_lock_folder`; InvalidInput when another run holds it, saying
    ``message`` (default: ``<what> <path> is in use``) and ``hint``."""
    lock = lock_file(what, path)
    folder = lock.parent
    if str(lock) in _held:
        return
    if _swept.get(str(folder)) != os.getpid():  # the first lock here: the stale files go now
        _sweep(folder)
        _swept[str(folder)] = os.getpid()
    fd = _open_locked(lock, shared)
    if fd is None:
        try:
            other = lock.read_text("utf-8", "replace").strip() or "unknown"
        except OSError:
            other = "unknown"
        said = message or f"{what} {path} is in use"
        raise InvalidInput(f"{said} by another agentci run (pid {other}); {hint}")
    with contextlib.suppress(OSError):  # another user's file, open read-only: not named
        os.ftruncate(fd, 0)  # a shared lock's file names its latest holder
        os.write(fd, str(os.getpid()).encode())
    global _owner
    _owner = os.getpid()
    _held[str(lock)] = fd


def workspace_root(path: Path) -> Path:
    """What a run on ``path`` edits in place, as far as locks and a batch's isolation go: the
    top-level folder of the git repository holding it (a linked worktree's own top-level), or
    the folder itself outside git."""
    resolved = Path(path).resolve()
    found = find_repo_dirs(resolved)
    return found[0] if found else resolved


def overlapping(a: Path, b: Path) -> bool:
    """Whether two :func:`workspace_root` folders share files: the same, or one inside the other."""
    return a == b or a in b.parents or b in a.parents


def lock_workspace(path: Path) -> None:
    """Lock a workspace the agent edits in place (``isolation: none``) for this process: its
    :func:`workspace_root` exclusively, every folder above that shared (module docstring).
    Refused, it keeps none of the locks it took."""
    ws = Path(path).resolve()
    root = workspace_root(ws)
    hint = "wait for it to finish, or use isolation: copy"
    where = "" if root == ws else f" (in the repository {root})"
    inside = "it or a folder inside it is edited in place; " + hint
    before = set(_held)
    try:
        take_lock("workspace", root, inside, message=f"workspace {ws}{where} is in use")
        for above in root.parents:
            take_lock(
                "workspace",
                above,
                hint,
                shared=True,
                message=f"workspace {ws} is inside {above}, which is in use",
            )
    except InvalidInput:
        for lock in set(_held) - before:
            _drop(lock)
        raise
