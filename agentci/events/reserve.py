"""Disk space set aside in the output folder for a run's last words: when the disk fills up,
the event log frees it (:class:`agentci.events.sinks.JsonlSink`) so the last events and the
final files can still be written (:mod:`agentci.reports.outdir` makes the folder)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

RESERVE = ".agentci-reserve"
RESERVE_BYTES = 256 * 1024  # at most; a quarter of the free space on a small disk


def reserve_space(out_dir: Path) -> None:
    """Set disk space aside for the final outputs: a preallocated :data:`RESERVE` file of
    :data:`RESERVE_BYTES` (at most a quarter of the free space). When the disk fills up during
    the run, :func:`release_reserve` gives that space back for the last events, result.json,
    junit.xml and summary.md. Nothing is reserved when the disk cannot hold it."""
    path = Path(out_dir) / RESERVE
    try:
        stats = os.statvfs(out_dir)
        size = min(RESERVE_BYTES, stats.f_bavail * stats.f_frsize // 4)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    except OSError:
        return
    try:
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError:
            os.write(fd, b"\0" * size)  # a file system without fallocate
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()
    finally:
        os.close(fd)


def release_reserve(out_dir: Path) -> bool:
    """Free the space :func:`reserve_space` set aside; True when there was some."""
    try:
        (Path(out_dir) / RESERVE).unlink()
    except OSError:
        return False
    return True
