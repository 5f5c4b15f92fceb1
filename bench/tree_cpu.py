"""The CPU time of a whole process tree, its sandboxed descendants included.

``wait4`` counts a child's descendants only as far as each one was waited for by its parent;
bubblewrap's PID namespace ends that chain (its init is never waited for), so the pytest runs
of agentci's verify are missing from agentci's ``wait4`` figure. A cgroup v2 group counts every
process that was ever in it: the command is started inside a new group (a shell moves itself
in, then ``exec``s the command) and the group's ``cpu.stat`` ``usage_usec`` is read when it has
exited. Needs root (or a delegated cgroup); elsewhere the CPU figure is None.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from bench.bench_vs_gemini_cli import Proc, run

_COUNT = itertools.count()
#: moves the shell into the group named by $1, then runs the rest of the arguments
_ENTER = 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"'


@dataclass
class Timed:
    """A finished command and the CPU seconds of its whole tree (None: no cgroup)."""

    proc: Proc
    cpu: float | None


def cgroup2_root() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted, when this process may make groups in it."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            root = Path(fields[1])
            if os.access(root, os.W_OK) and (root / "cgroup.procs").exists():
                return root
    return None


def _usage(group: Path) -> float:
    for line in (group / "cpu.stat").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise ValueError(f"no usage_usec in {group}/cpu.stat")


def timed(cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: float) -> Timed:
    """Run ``cmd`` (:func:`bench.bench_vs_gemini_cli.run`) in a cgroup of its own when one can
    be made: its wall time, and the CPU time of every process it started."""
    root = cgroup2_root()
    group = None
    if root is not None:
        group = root / f"agentci-bench-{os.getpid()}-{next(_COUNT)}"
        try:
            group.mkdir()
        except OSError:
            group = None
    if group is None:
        return Timed(run(cmd, env=env, cwd=cwd, timeout=timeout), None)
    try:
        proc = run(["sh", "-c", _ENTER, "sh", str(group), *cmd], env=env, cwd=cwd,
                   timeout=timeout)  # fmt: skip
        return Timed(proc, _usage(group))
    finally:
        with contextlib.suppress(OSError):
            group.rmdir()  # empty once the tree has exited
