"""Other processes as a test sees them in Linux's ``/proc``: which ones have a marker in their
command line, and whether one still runs (a zombie waiting for its parent has ended).

    marker = f"sleep 3600.{os.getpid()}"  # a command line no other process has
    ...
    assert pids_with(marker) == []  # nothing the run started outlived it
"""

from __future__ import annotations

import os
from pathlib import Path


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie, or a dead process not yet
    removed, has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # "pid (command name) state ...": the name may hold spaces and parentheses itself
    fields = stat.rsplit(")", 1)[-1].split()
    return bool(fields) and fields[0] not in ("Z", "X")


def pids_with(marker: str) -> list[int]:
    """The running processes other than this one whose command line contains ``marker``
    (its arguments joined by spaces; bytes that are not UTF-8 read as U+FFFD, so a process
    with such an argument is read like any other)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # it ended meanwhile
            continue
        text = cmdline.replace(b"\0", b" ").decode(errors="replace")
        if marker in text and running(int(entry.name)):
            found.append(int(entry.name))
    return found
