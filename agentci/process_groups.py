"""Starting a command in a process group of its own (:func:`start_in_session`), and ending it:
its process group, and the processes below it that left the group.

A command runs in a session of its own, so killing its process group ends it and what it
started in the group. A process below it may have left the group, though, with a session of its
own: bubblewrap's sandbox does so on purpose (``--new-session``), and its first process inside
the sandbox asks for a parent-death signal only once the sandbox is set up. A signal that kills
the group while bubblewrap is still setting the sandbox up (a SIGTERM soon after a command
starts) would leave that process alive: the sandbox runs on with the command, which holds the
output pipe. :func:`kill_group` therefore first stops the group (nothing in it forks
meanwhile), then kills each process below the leader that leads a group of its own, that group
with it (in the sandbox, the sandbox's first process: the kernel then ends every process of the
sandbox), and then the group.

A process that has already left the tree (a daemon that forked twice) is out of reach: it is
never waited for (:mod:`agentci.process` waits for the command's exit status, not for its
output pipe to close).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

#: Process groups of the commands running now (a second signal kills them before exiting).
RUNNING_GROUPS: set[int] = set()


def start_in_session(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], pass_fds: Sequence[int]
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session (its own process group, which :func:`kill_group` ends)
    with stdin from ``/dev/null`` and stdout and stderr into one pipe; ``pass_fds`` are
    inherited. Both ways of running a command start it so (:mod:`agentci.spawn`,
    :func:`agentci.childproc.run_blocking`)."""
    return subprocess.Popen(
        list(argv),
        cwd=str(cwd),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )


def children(pid: int) -> list[int]:
    """The children of ``pid`` (Linux ``/proc``; none where it cannot be read)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, parents first."""
    out: list[int] = []
    todo = children(pid)
    while todo:
        child = todo.pop(0)
        if child in out:
            continue
        out.append(child)
        todo += children(child)
    return out


def _signal_group(pgid: int, sig: int) -> None:
    if pgid <= 1 or pgid == os.getpgrp():  # never agentci's own group, never everything
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_group(pid: int) -> None:
    """Kill the process group ``pid`` leads and every group led below its leader (see the
    module docstring); a group that has ended already is fine."""
    _signal_group(pid, signal.SIGSTOP)  # no fork in the group while its tree is read
    try:
        leads = os.getpgid(pid) == pid  # not a reaped leader's pid that another process reuses
    except OSError:
        leads = False
    for below in _descendants(pid) if leads else []:
        with contextlib.suppress(OSError):
            pgid = os.getpgid(below)
            if pgid != pid:  # it left the group: its own group goes too
                _signal_group(pgid, signal.SIGKILL)
                os.kill(below, signal.SIGKILL)
    _signal_group(pid, signal.SIGKILL)


def kill_running_groups() -> None:
    """Kill every command still running (used when agentci must exit at once), including one
    still being started: any child of ours that leads its own process group."""
    pids = set(RUNNING_GROUPS)
    for child in children(os.getpid()):
        with contextlib.suppress(OSError):
            if os.getpgid(child) == child:
                pids.add(child)
    for pid in pids:
        kill_group(pid)
