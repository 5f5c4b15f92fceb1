"""The bytecode of the workspace's own modules, carried from a task's baseline verify run to
its later verify runs.

Sandboxed Python never reads a ``.pyc`` from the workspace (:mod:`agentci.policy.pyc_cache`),
and the bytecode store never holds the workspace's modules, so every verify run used to compile
every test module again — and pytest's assertion rewriting of a test module costs more than
running it: on a suite of 20,000 trivial tests the compile was half of each run. A developer's
second pytest run reads the ``__pycache__`` its first wrote.

:class:`WorkspaceBytecode` gives the task's runs the same: the ``.pyc`` files the **baseline**
run (before the agent, the checkout's own code) wrote for the workspace's sources into its view
of the store are kept in a folder of agentci's that no sandbox can write, each with the SHA-256
of its source as it was after that run. Each later run's view gets a copy of those whose source
still has those bytes (a file the agent changed, however its time stamps read, is compiled
again); copies, never links, so that nothing a later run writes reaches the kept files. Nothing
from a run after the agent is ever kept, and nothing is kept past the task. Only the run's first
task, not resumed, keeps any (``ChangeCheck(carry_bytecode=...)``): a later task's baseline on
the same tree runs an earlier agent's code, which could write bytecode that is not its
source's.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agentci.policy.paths import is_below
from agentci.tempdirs import make_temp_dir

#: At most this many ``.pyc`` files are kept for a task.
MAX_FILES = 50_000
#: At most this many bytes of them.
MAX_BYTES = 512 << 20
#: A source larger than this is not hashed (its bytecode is compiled by each run).
MAX_SOURCE_BYTES = 64 << 20


@dataclass(frozen=True)
class _Kept:
    rel: str  # the .pyc's path below the view (and below the kept folder)
    source: str  # the source's path, as the sandboxed run saw it
    digest: str  # the source's SHA-256 after the baseline run
    stamp: tuple[int, int, int, int, int]  # its (device, inode, size, mtime_ns, ctime_ns)


class WorkspaceBytecode:
    """The workspace's bytecode of one task (see the module)."""

    def __init__(self, workspace: Path) -> None:
        self.roots = sorted({Path(workspace), Path(os.path.realpath(workspace))})
        self.folder: Path | None = None
        self.kept: list[_Kept] = []

    def keep(self, view: Path) -> int:
        """After the baseline run: keep the ``.pyc`` files it wrote into ``view`` for sources
        in the workspace. Returns how many."""
        kept: list[_Kept] = []
        total = 0
        for rel, source in self._written(view):
            found = _digest(source)
            if found is None:
                continue
            size = os.lstat(view / rel).st_size
            if len(kept) >= MAX_FILES or total + size > MAX_BYTES:
                break
            if self.folder is None:
                self.folder = make_temp_dir("pyckeep")
            target = self.folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                _copy_regular(view / rel, target)
            except OSError:
                continue
            total += size
            kept.append(_Kept(rel, source, *found))
        self.kept = kept
        return len(kept)

    def seed(self, view: Path) -> int:
        """Before a later run: copy into ``view`` the kept files whose source still has the
        bytes it had. Returns how many."""
        if self.folder is None:
            return 0
        seeded = 0
        for item in self.kept:
            if not _unchanged(item):
                continue
            target = view / item.rel
            with contextlib.suppress(OSError):
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.is_symlink():  # the store's own (it never holds the workspace's)
                    target.unlink()
                _copy_regular(self.folder / item.rel, target)
                seeded += 1
        return seeded

    def cleanup(self) -> None:
        """Remove the kept files (the task is over)."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder, self.kept = None, []

    def _written(self, view: Path) -> Iterable[tuple[str, str]]:
        """(path below ``view``, source path) of each regular ``.pyc`` file the run wrote for a
        ``.py`` source in the workspace (``name.<tag>.pyc``, pytest's ``name.<tag>-pytest-<v>.pyc``)."""
        for root in self.roots:
            below = view / str(root).lstrip("/")
            if below.is_symlink() or not below.is_dir():
                continue
            for dirpath, _dirs, files in os.walk(below):
                rel_dir = os.path.relpath(dirpath, view)
                for name in files:
                    if not name.endswith(".pyc") or name.count(".") < 2:
                        continue
                    rel = os.path.join(rel_dir, name)
                    if not stat.S_ISREG(os.lstat(view / rel).st_mode):
                        continue
                    source = "/" + os.path.join(rel_dir, name.split(".", 1)[0] + ".py")
                    if any(is_below(Path(source), r) for r in self.roots):
                        yield rel, source


def _stamp(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _digest(source: str) -> tuple[str, tuple[int, int, int, int, int]] | None:
    """The SHA-256 and stamp of a regular file (not followed through a link), or None."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
            return None
        sha = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            sha.update(chunk)
        return sha.hexdigest(), _stamp(st)
    except OSError:
        return None
    finally:
        os.close(fd)


def _unchanged(item: _Kept) -> bool:
    """Whether ``item``'s source still has its bytes: the same stamp (a process cannot set a
    file's ctime back), else the same SHA-256."""
    try:
        if _stamp(os.lstat(item.source)) == item.stamp:
            return True
    except OSError:
        return False
    found = _digest(item.source)
    return found is not None and found[0] == item.digest


def _copy_regular(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` (a new file; nothing followed), replacing what is there."""
    partial = dst.with_name(f".{dst.name}.{os.getpid()}.part")
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{src}: not a regular file")
        with open(fd, "rb", closefd=False) as reader, open(partial, "xb") as writer:
            shutil.copyfileobj(reader, writer, 1 << 20)
        os.replace(partial, dst)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(partial)
