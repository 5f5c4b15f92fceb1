"""Changing workspace files: atomic writes, deletes and moves beneath a root, never through a
link (a link at the path itself is replaced or moved, never written through)."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

from agentci.workspace_io.beneath import (
    OpenParent,
    Root,
    UnsafePath,
    explain,
    open_parent,
    opened_root,
    path_parts,
)
from agentci.workspace_io.writes import note


def write_bytes(root: Root, rel: str, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``rel`` below ``root`` atomically (a temporary file in the same folder,
    renamed over it): folders on the way are made, and none of them, nor the file, may be a link.
    A link at ``rel`` is replaced, never written through. Raises :class:`UnsafePath`."""
    note(root)
    parts = path_parts(rel)
    if not parts:
        raise UnsafePath("not a file path")
    with opened_root(root) as root_fd:
        try:
            dir_fd = open_parent(root_fd, parts, make=True)
        except OSError as exc:
            raise explain(rel, exc) from None
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
            raise explain(rel, exc) from None
        finally:
            os.close(dir_fd)


def unlink(root: Root, rel: str, *, prune: bool = False) -> bool:
    """Delete the file (or link: the link itself) ``rel`` below ``root``; with ``prune`` the
    folders it leaves empty go too, up to the root. False when there was nothing to delete."""
    note(root)
    parts = path_parts(rel)
    if not parts:
        return False
    with opened_root(root) as root_fd:
        try:
            dir_fd = open_parent(root_fd, parts, make=False)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise explain(rel, exc) from None
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
            with OpenParent(root_fd, parts[:depth]) as up:
                os.rmdir(parts[depth - 1], dir_fd=up)
        except OSError:
            break


def move(root: Root, rel: str, dest_root: Root, dest_rel: str, *, keep: int | None = None) -> None:
    """Rename ``rel`` below ``root`` to ``dest_rel`` below ``dest_root`` (folders on the way
    made), whatever it is (a link is moved, not followed; no folder on either way may be a
    link). Its size, times, inode and mode stay as they were. Both must be on one filesystem.
    With ``keep`` the folders ``rel`` leaves empty go, except its first ``keep`` ones. Raises
    :class:`UnsafePath` (also when ``rel`` is missing or ``dest_rel`` is a folder)."""
    note(root)
    note(dest_root)
    parts, dest = path_parts(rel), path_parts(dest_rel)
    if not parts or not dest:
        raise UnsafePath("not a file path")
    with opened_root(root) as root_fd, opened_root(dest_root) as dest_fd:
        try:
            src_dir = open_parent(root_fd, parts, make=False)
        except OSError as exc:
            raise explain(rel, exc) from None
        try:
            dst_dir = open_parent(dest_fd, dest, make=True)
        except OSError as exc:
            os.close(src_dir)
            raise explain(dest_rel, exc) from None
        try:
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISDIR(os.lstat(dest[-1], dir_fd=dst_dir).st_mode):
                    raise UnsafePath("a folder")
            os.rename(parts[-1], dest[-1], src_dir_fd=src_dir, dst_dir_fd=dst_dir)
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                raise UnsafePath("on another filesystem: cannot be moved") from None
            raise explain(rel, exc) from None
        finally:
            os.close(src_dir)
            os.close(dst_dir)
        if keep is not None:
            _prune(root_fd, parts, keep)
