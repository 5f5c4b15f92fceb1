"""Reading workspace files: regular files only, of a bounded size, and what a path is.

A file is opened ``O_NONBLOCK`` (a FIFO cannot hang the open) beneath its root and checked with
``fstat``: FIFOs, devices, sockets and folders are refused, and so are hard-linked files (a hard
link can make a file from elsewhere look like one of the workspace).
"""

from __future__ import annotations

import os
import stat

from agentci.workspace_io.beneath import (
    Root,
    UnsafePath,
    open_beneath,
    open_parent,
    opened_root,
    path_parts,
)


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


def kind(root: Root, rel: str) -> str:
    """What ``rel`` below ``root`` is, without following a link: ``"file"``, ``"dir"``,
    ``"link"``, ``"other"`` (FIFO, device, socket) or ``"missing"`` (also when a folder on the
    way is a link or missing)."""
    parts = path_parts(rel)
    if not parts:
        return "dir"
    with opened_root(root) as root_fd:
        try:
            dir_fd = open_parent(root_fd, parts, make=False)
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
