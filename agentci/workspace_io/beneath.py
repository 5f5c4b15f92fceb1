"""Opening a workspace path beneath a root, never through a link.

``openat2`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` where the
kernel has it, else a walk from the root one component at a time, each folder opened
``O_NOFOLLOW | O_DIRECTORY`` relative to the last one's descriptor. ``..``, absolute paths and
NUL bytes are refused before anything is opened. Every refusal is an :class:`UnsafePath`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
from collections.abc import Iterator
from pathlib import Path

from agentci.errors import ToolFailure

#: ``openat2`` (Linux 5.6+) and its ``resolve`` flags.
_SYS_OPENAT2 = 437  # the same number on x86_64 and aarch64 (the generic syscall table)
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
#: Whether openat2 works here (None: not tried yet).
_openat2_works: bool | None = None

Root = Path | str | int


class UnsafePath(ToolFailure):
    """A workspace path the host will not open: a link, outside the root, not a regular file,
    too large, or missing (:attr:`missing`)."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _openat2(dir_fd: int, rel: str, flags: int, mode: int) -> int | None:
    """``openat2`` beneath ``dir_fd`` without links; None when the kernel refuses the call."""
    global _openat2_works
    if _openat2_works is False or not hasattr(os, "O_DIRECTORY"):
        return None
    libc = _libc()
    if libc is None or os.uname().sysname != "Linux":
        _openat2_works = False
        return None
    how = _OpenHow(
        flags, mode if flags & os.O_CREAT else 0,
        _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS,
    )  # fmt: skip
    fd = libc.syscall(_SYS_OPENAT2, dir_fd, os.fsencode(rel), ctypes.byref(how), ctypes.sizeof(how))
    if fd >= 0:
        _openat2_works = True
        return int(fd)
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EPERM) and _openat2_works is None:
        _openat2_works = False  # no openat2 here (an old kernel, or seccomp): walk instead
        return None
    raise OSError(err, os.strerror(err), rel)


def path_parts(rel: str | os.PathLike[str]) -> list[str]:
    """The components of ``rel`` (``.`` and empty ones dropped); a NUL byte, an absolute path
    or a ``..`` is an :class:`UnsafePath`."""
    text = os.fspath(rel)
    if "\x00" in text:
        raise UnsafePath("path contains a NUL byte")
    if os.path.isabs(text):
        raise UnsafePath(f"{text}: an absolute path (the host opens workspace paths only)")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafePath(f"{text}: a path with '..' (the host opens workspace paths only)")
    return parts


@contextlib.contextmanager
def opened_root(root: Root) -> Iterator[int]:
    """A descriptor of ``root`` (a trusted folder path, resolved once), closed on exit; a
    descriptor given as ``root`` is used as it is and left open."""
    if isinstance(root, int):
        yield root
        return
    fd = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def _walk_open(dir_fd: int, parts: list[str], flags: int, mode: int) -> int:
    """Open ``parts`` below ``dir_fd`` one component at a time, never following a link."""
    cur = dir_fd
    try:
        for name in parts[:-1]:
            nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                          dir_fd=cur)  # fmt: skip
            if cur != dir_fd:
                os.close(cur)
            cur = nxt
        return os.open(parts[-1], flags | os.O_NOFOLLOW, mode, dir_fd=cur)
    finally:
        if cur != dir_fd:
            os.close(cur)


def explain(rel: str, exc: OSError) -> UnsafePath:
    """The :class:`UnsafePath` a failed open of ``rel`` means to the caller."""
    if exc.errno == errno.ENOENT:
        return UnsafePath("file not found", missing=True)
    if exc.errno in (errno.ELOOP, errno.EXDEV, errno.ENOTDIR):
        return UnsafePath("a symbolic link (or a path through one), not followed")
    return UnsafePath(f"cannot open: {exc.strerror}")


def open_beneath(root: Root, rel: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor of ``rel`` below ``root``, opened without following any link.

    ``flags`` are ``os.open`` flags (``O_CLOEXEC`` and ``O_NOFOLLOW`` are added); ``rel`` of
    ``"."`` opens the root itself. Raises :class:`UnsafePath`."""
    parts = path_parts(rel)
    flags |= os.O_CLOEXEC | os.O_NOFOLLOW
    with opened_root(root) as dir_fd:
        if not parts:
            return os.dup(dir_fd)
        try:
            fd = _openat2(dir_fd, "/".join(parts), flags, mode)
            return fd if fd is not None else _walk_open(dir_fd, parts, flags, mode)
        except OSError as exc:
            raise explain(os.fspath(rel), exc) from None


def open_parent(root_fd: int, parts: list[str], *, make: bool) -> int:
    """A descriptor of the folder holding ``parts[-1]``, made (no links) when ``make``."""
    cur = os.dup(root_fd)
    try:
        for name in parts[:-1]:
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=cur)
            nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                          dir_fd=cur)  # fmt: skip
            os.close(cur)
            cur = nxt
        return cur
    except BaseException:
        os.close(cur)
        raise


class OpenParent:
    """The descriptor of the folder holding ``parts[-1]`` (no links), closed on exit."""

    def __init__(self, root_fd: int, parts: list[str]) -> None:
        self.fd = open_parent(root_fd, parts, make=False)

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)
