"""How the file tools touch the workspace: reads of regular files without following a link,
writes checked against the protected paths and made atomic (a temporary file renamed into
place, finished even when the task is cancelled), and the notes and refusals that keep a file
that is not UTF-8 from being damaged by a round trip through the model."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from agentci import workspace_io
from agentci.errors import ToolFailure
from agentci.policy.gitconfig import mask_for_model
from agentci.policy.paths import Protected, anchored, resolve, verify_fd
from agentci.tools.base import ToolContext
from agentci.tools.truncation import SAVED_PREFIX

T = TypeVar("T")
MAX_READ_BYTES = 20 << 20


def read_bytes(ctx: ToolContext, real: Path, limit: int = MAX_READ_BYTES) -> bytes:
    """Read a regular file inside the workspace without following a final symlink."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ToolFailure("file not found") from None
    except OSError as exc:
        raise ToolFailure(f"cannot open: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        st = verify_fd(ctx.workspace, fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure("not a regular file")
        if st.st_size > limit:
            raise ToolFailure(f"file is too large ({st.st_size} bytes, limit {limit})")
        return fh.read(limit + 1)


def refuse_saved_output(rel: str) -> None:
    """``@tool-outputs/`` names saved tool outputs: read-only, and never a workspace file."""
    if rel.startswith(SAVED_PREFIX) or rel == SAVED_PREFIX.rstrip("/"):
        raise ToolFailure(f"{rel}: {SAVED_PREFIX} names saved tool outputs, which are read-only")


def check_writable(ctx: ToolContext, real: Path, rel: str) -> None:
    """Refuse protected paths (``.git``, ``.agentci``, ``ctx.protected`` globs) and the saved
    tool outputs' names."""
    refuse_saved_output(rel)
    guard = Protected(ctx.workspace, workflows=False)
    why = guard.why(real, rel)
    if not why and ctx.protected and anchored(ctx.protected).match_file(rel):
        why = rel
    if why:
        more = guard.explain(why)
        raise ToolFailure(f"{rel} is a protected path ({why}){more}; the agent may not write it")


def atomic_write(ctx: ToolContext, real: Path, rel: str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``real`` and rename it into place."""
    check_writable(ctx, real, rel)
    parent = real.parent
    parent.mkdir(parents=True, exist_ok=True)
    # a symlink planted meanwhile? (``rel``, not the absolute path: the checkout's own folder
    # name may be one no model-given name could be, such as bytes that are not UTF-8)
    again = resolve(ctx.workspace, PurePosixPath(rel).parent.as_posix())
    if again.real != parent:
        raise ToolFailure("the directory changed while writing")
    mode = 0o644
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(real)
        if stat.S_ISDIR(st.st_mode):
            raise ToolFailure(f"{rel} is a directory")
        mode = stat.S_IMODE(st.st_mode)
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=".agentci-tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


async def write_in_thread(func: Callable[..., T], *args: Any) -> T:
    """Run a writing ``func`` in a worker thread, to its end even when the task is cancelled
    meanwhile (wall clock, SIGTERM): the cancellation goes on only after the thread is done, so
    no half-done write — a temporary file beside its target — is left for the final snapshot."""
    work = asyncio.ensure_future(asyncio.to_thread(func, *args))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await work
        raise


def not_utf8_note(data: bytes) -> str:
    """A first line telling the model the file is not UTF-8 (``""`` when it is)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return (
            f"[not UTF-8: bytes that are not valid UTF-8 (the first on line {line}) are shown "
            "as U+FFFD (\ufffd); write_file refuses content with U+FFFD for this file, and "
            "replace keeps those bytes but cannot match them — change such lines with "
            "run_shell_command]\n"
        )
    return ""


def refuse_lossy_overwrite(ctx: ToolContext, real: Path, rel: str, content: str) -> None:
    """Refuse to overwrite a file that is not UTF-8 with text holding U+FFFD: that is
    read_file's stand-in for bytes it could not decode, and writing it destroys them."""
    if "\ufffd" not in content:
        return
    try:
        old = read_bytes(ctx, real)
    except ToolFailure:
        return  # a new, unreadable or oversized file: nothing read_file could have shown
    if not_utf8_note(old):
        raise ToolFailure(
            f"{rel} holds bytes that are not UTF-8, which read_file shows as U+FFFD; this "
            "content contains U+FFFD and would replace them. Use replace for the lines you "
            "change (it keeps those bytes), or run_shell_command"
        )


def read_text_masked(
    root: workspace_io.Root, rel: str, max_bytes: int, *, cut: bool = False
) -> str:
    """The file as text for the model (UTF-8, undecodable bytes replaced; with ``cut`` at most
    ``max_bytes`` bytes, the last character whole), masked as
    :func:`~agentci.policy.gitconfig.mask_for_model` says."""
    data = workspace_io.read_bytes(root, rel, max_bytes, cut=cut)
    if len(data) > max_bytes:
        text = data[:max_bytes].decode("utf-8", errors="ignore")
    else:
        text = data.decode("utf-8", errors="replace")
    return mask_for_model(root, rel, text)
