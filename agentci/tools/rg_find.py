"""Finding ``rg``: the program agentci would run and the version it reports, in two steps so
that a caller can start the version check and do other work meanwhile (the pre-commit hook's
clean path, :mod:`agentci.precommit.quick`, does it while ruff runs)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from agentci.hostprog import host_program


def rg_candidates() -> Iterator[str]:
    """The ``rg`` programs to try, in order: next to agentci's Python first, then ``PATH``;
    only absolute paths (a relative ``PATH`` entry is the working directory) of executable
    files."""
    for cand in (
        Path(sysconfig.get_path("scripts")) / "rg",
        Path(sys.executable).parent / "rg",
        host_program("rg"),
    ):
        if cand is None or not os.path.isabs(cand):
            continue
        if not os.access(cand, os.X_OK) or not Path(cand).is_file():
            continue
        yield str(cand)


def rg_version(path: str) -> str | None:
    """The first line of ``path --version`` (``ripgrep`` when it is empty), or None when the
    program does not run or fails."""
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, env={}, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    version = done.stdout.decode(errors="replace").split("\n", 1)[0].strip()
    return version or "ripgrep"


def find_rg() -> tuple[str, str] | None:
    """``(path, version)`` of the first candidate (:func:`rg_candidates`) that runs."""
    for cand in rg_candidates():
        version = rg_version(cand)
        if version is not None:
            return cand, version
    return None
