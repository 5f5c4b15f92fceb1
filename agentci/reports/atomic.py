"""Atomic file writes: a reader (or a SIGKILL) never sees half a file.

Data goes to ``.<name>.tmp-<pid>-<random>`` next to the target, is flushed and fsynced, then
renamed over the target. :data:`TEMP_MARKER` lets :func:`agentci.reports.outdir.prepare_out_dir`
find temp files a killed run left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
from pathlib import Path

TEMP_MARKER = ".tmp-"


def temp_name(path: Path) -> Path:
    """A fresh temp path in the same folder as ``path`` (so the rename is atomic)."""
    return path.with_name(f".{path.name}{TEMP_MARKER}{os.getpid()}-{secrets.token_hex(4)}")


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (creating parent folders)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_name(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ESCAPE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def encode_text(text: str, *, keep_bytes: bool = False) -> bytes:
    """``text`` as UTF-8 that never fails.

    Lone surrogates become U+FFFD, except with ``keep_bytes``: then ``surrogateescape`` ones
    (U+DC80..U+DCFF, from decoding non-UTF-8 bytes) turn back into the bytes they stand for, so a
    patch of a Latin-1 file is written exactly.
    """
    if keep_bytes:
        return _NON_ESCAPE_SURROGATE.sub("\ufffd", text).encode("utf-8", "surrogateescape")
    return _SURROGATE.sub("\ufffd", text).encode("utf-8")


def write_text_atomic(path: Path, text: str, *, keep_bytes: bool = False) -> None:
    """Write ``text`` atomically as UTF-8 (see :func:`encode_text` for ``keep_bytes``)."""
    write_bytes_atomic(path, encode_text(text, keep_bytes=keep_bytes))


def is_temp_file(path: Path) -> bool:
    """True for a temp file :func:`write_bytes_atomic` creates."""
    return path.name.startswith(".") and TEMP_MARKER in path.name


def replace_text_atomic(path: Path, text: str, *, keep_bytes: bool = False) -> None:
    """Write ``text`` to ``path`` atomically. On a full disk an older file at ``path`` (the
    first pass's, when the outputs are rewritten to say ``internal_error``) is removed and the
    write tried once more: a file that cannot be replaced must not stay behind saying what the
    run no longer says (a result.json of ``success`` from a run that ends 70)."""
    try:
        write_text_atomic(path, text, keep_bytes=keep_bytes)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) or not os.path.lexists(path):
            raise
        path.unlink()
        write_text_atomic(path, text, keep_bytes=keep_bytes)
