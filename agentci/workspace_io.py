"""The one door between the host and the workspace: what the host may do with workspace files.

After the first model call every byte of the workspace is attacker data to the host side, and
so is a committed file of a pull request. Every host-side read or write of a workspace path goes
through this module:

* paths are opened **beneath** a root (the workspace, or an output folder) and **no link is
  followed**, neither the last component nor a folder on the way: ``openat2`` with
  ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` where the kernel has it,
  else a walk from the root one component at a time, each folder opened ``O_NOFOLLOW |
  O_DIRECTORY`` relative to the last one's descriptor;
* reads take **regular files only**: the file is opened ``O_NONBLOCK`` (a FIFO cannot hang the
  open) and checked with ``fstat``; FIFOs, devices, sockets and folders are refused, and so are
  hard-linked files (a hard link can make a file from elsewhere look like one of the workspace);
* sizes are **bounded**: a caller names the most bytes it takes;
* text headed for the model is **masked** as ``read_file`` masks it (:func:`read_text_masked`:
  a repository config file loses its credentials, :func:`agentci.policy.gitconfig.sanitise`).

Every refusal is a :class:`UnsafePath`, a :class:`~agentci.errors.ToolFailure`: a tool shows it
to the model, and a host-side reader skips the file with its message.

``root`` is a folder path (trusted: it is resolved once) or an open descriptor of one.
``rel`` is a relative path below it; ``..`` and absolute paths are refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import secrets
import stat
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


def _parts(rel: str | os.PathLike[str]) -> list[str]:
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
def _root_fd(root: Root) -> Iterator[int]:
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


def _explain(rel: str, exc: OSError) -> UnsafePath:
    if exc.errno == errno.ENOENT:
        return UnsafePath("file not found", missing=True)
    if exc.errno in (errno.ELOOP, errno.EXDEV, errno.ENOTDIR):
        return UnsafePath("a symbolic link (or a path through one), not followed")
    return UnsafePath(f"cannot open: {exc.strerror}")


def open_beneath(root: Root, rel: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor of ``rel`` below ``root``, opened without following any link.

    ``flags`` are ``os.open`` flags (``O_CLOEXEC`` and ``O_NOFOLLOW`` are added); ``rel`` of
    ``"."`` opens the root itself. Raises :class:`UnsafePath`."""
    parts = _parts(rel)
    flags |= os.O_CLOEXEC | os.O_NOFOLLOW
    with _root_fd(root) as dir_fd:
        if not parts:
            return os.dup(dir_fd)
        try:
            fd = _openat2(dir_fd, "/".join(parts), flags, mode)
            return fd if fd is not None else _walk_open(dir_fd, parts, flags, mode)
        except OSError as exc:
            raise _explain(os.fspath(rel), exc) from None


def _regular(fd: int, rel: str, max_bytes: int | None, *, hardlinks: bool) -> os.stat_result:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath("not a regular file")
    if not hardlinks and st.st_nlink > 1:
        raise UnsafePath("a hard-linked file (it may be a file from elsewhere), refused")
    if max_bytes is not None and st.st_size > max_bytes:
        raise UnsafePath(f"too large ({st.st_size} bytes, the limit is {max_bytes})")
    return st


def read_bytes(
    root: Root, rel: str, max_bytes: int, *, cut: bool = False, hardlinks: bool = False
) -> bytes:
    """The bytes of the regular file ``rel`` below ``root``.

    A file larger than ``max_bytes`` is refused, or with ``cut`` its first ``max_bytes + 1``
    bytes are returned (so the caller sees it was longer). Raises :class:`UnsafePath`."""
    fd = open_beneath(root, rel, os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = _regular(fd, rel, None if cut else max_bytes, hardlinks=hardlinks)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        # sized by fstat (no buffer of max_bytes for a small file), then whatever it grew by
        data = fh.read(min(st.st_size, max_bytes) + 1)
        if st.st_size < len(data) <= max_bytes:
            data += fh.read(max_bytes + 1 - len(data))
    if len(data) > max_bytes and not cut:  # it grew after fstat
        raise UnsafePath(f"too large (more than {max_bytes} bytes)")
    return data


def _parent(root_fd: int, parts: list[str], *, make: bool) -> int:
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


def write_bytes(root: Root, rel: str, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``rel`` below ``root`` atomically (a temporary file in the same folder,
    renamed over it): folders on the way are made, and none of them, nor the file, may be a link.
    A link at ``rel`` is replaced, never written through. Raises :class:`UnsafePath`."""
    parts = _parts(rel)
    if not parts:
        raise UnsafePath("not a file path")
    with _root_fd(root) as root_fd:
        try:
            dir_fd = _parent(root_fd, parts, make=True)
        except OSError as exc:
            raise _explain(rel, exc) from None
        try:
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISDIR(os.lstat(parts[-1], dir_fd=dir_fd).st_mode):
                    raise UnsafePath("a folder")
            tmp = f".agentci-tmp-{secrets.token_hex(6)}"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                    os.fchmod(fh.fileno(), mode)
                os.replace(tmp, parts[-1], src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
                raise
        except OSError as exc:
            raise _explain(rel, exc) from None
        finally:
            os.close(dir_fd)


def unlink(root: Root, rel: str, *, prune: bool = False) -> bool:
    """Delete the file (or link: the link itself) ``rel`` below ``root``; with ``prune`` the
    folders it leaves empty go too, up to the root. False when there was nothing to delete."""
    parts = _parts(rel)
    if not parts:
        return False
    with _root_fd(root) as root_fd:
        try:
            dir_fd = _parent(root_fd, parts, make=False)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _explain(rel, exc) from None
        try:
            try:
                os.unlink(parts[-1], dir_fd=dir_fd)
            except FileNotFoundError:
                return False
            except IsADirectoryError:
                raise UnsafePath("a folder") from None
        finally:
            os.close(dir_fd)
        if prune:
            _prune(root_fd, parts)
    return True


def _prune(root_fd: int, parts: list[str], keep: int = 0) -> None:
    """Remove the folders on the way to ``parts`` that are empty, deepest first (no links),
    except the first ``keep``."""
    for depth in range(len(parts) - 1, keep, -1):
        try:
            with _ParentOf(root_fd, parts[:depth]) as up:
                os.rmdir(parts[depth - 1], dir_fd=up)
        except OSError:
            break


def move(root: Root, rel: str, dest_root: Root, dest_rel: str, *, keep: int | None = None) -> None:
    """Rename ``rel`` below ``root`` to ``dest_rel`` below ``dest_root`` (folders on the way
    made), whatever it is (a link is moved, not followed; no folder on either way may be a
    link). Its size, times, inode and mode stay as they were. Both must be on one filesystem.
    With ``keep`` the folders ``rel`` leaves empty go, except its first ``keep`` ones. Raises
    :class:`UnsafePath` (also when ``rel`` is missing or ``dest_rel`` is a folder)."""
    parts, dest = _parts(rel), _parts(dest_rel)
    if not parts or not dest:
        raise UnsafePath("not a file path")
    with _root_fd(root) as root_fd, _root_fd(dest_root) as dest_fd:
        try:
            src_dir = _parent(root_fd, parts, make=False)
        except OSError as exc:
            raise _explain(rel, exc) from None
        try:
            dst_dir = _parent(dest_fd, dest, make=True)
        except OSError as exc:
            os.close(src_dir)
            raise _explain(dest_rel, exc) from None
        try:
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISDIR(os.lstat(dest[-1], dir_fd=dst_dir).st_mode):
                    raise UnsafePath("a folder")
            os.rename(parts[-1], dest[-1], src_dir_fd=src_dir, dst_dir_fd=dst_dir)
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                raise UnsafePath("on another filesystem: cannot be moved") from None
            raise _explain(rel, exc) from None
        finally:
            os.close(src_dir)
            os.close(dst_dir)
        if keep is not None:
            _prune(root_fd, parts, keep)


class _ParentOf:
    """The descriptor of the folder holding ``parts[-1]`` (no links), closed on exit."""

    def __init__(self, root_fd: int, parts: list[str]) -> None:
        self.fd = _parent(root_fd, parts, make=False)

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def kind(root: Root, rel: str) -> str:
    """What ``rel`` below ``root`` is, without following a link: ``"file"``, ``"dir"``,
    ``"link"``, ``"other"`` (FIFO, device, socket) or ``"missing"`` (also when a folder on the
    way is a link or missing)."""
    parts = _parts(rel)
    if not parts:
        return "dir"
    with _root_fd(root) as root_fd:
        try:
            dir_fd = _parent(root_fd, parts, make=False)
        except OSError:
            return "missing"
        try:
            st = os.lstat(parts[-1], dir_fd=dir_fd)
        except OSError:
            return "missing"
        finally:
            os.close(dir_fd)
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISREG(st.st_mode):
        return "file"
    return "dir" if stat.S_ISDIR(st.st_mode) else "other"
