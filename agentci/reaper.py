"""A command that dies with agentci, even when agentci is killed with SIGKILL.

A command runs in its own session (process group), and agentci kills that group when the
command ends, times out, is cancelled or a second signal arrives. None of that can happen when
agentci itself is killed outright (``kill -9``, the OOM killer, a CI runner's hard stop): the
group would live on. So a command started with ``die_with_parent`` runs under a tiny watchdog,
the leader of its group: the watchdog asks the kernel for SIGTERM when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, Linux), starts the command, and on that signal kills its whole
group (the command and everything it started that stayed in the group) before leaving. It
exits with the command's exit status (a command killed by a signal: the watchdog ends by the
same signal). Elsewhere than Linux the watchdog only starts the command.

The watchdog is ``python -I -S`` (no site, no user path, no working directory on the path), so
it takes nothing from the folder it starts in.
"""

from __future__ import annotations

import os
import sys

#: The watchdog's program (argv: parent pid, then the command's argv).
WATCHDOG = """\
import os, signal, sys
parent = int(sys.argv[1])
def end(*_):
    try:
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(137)
signal.signal(signal.SIGTERM, end)
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
except Exception:
    pass
if os.getppid() != parent:
    end()
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
while True:
    try:
        _, status = os.waitpid(pid, 0)
        break
    except InterruptedError:
        continue
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)
os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
"""


def dying_with_parent(argv: list[str]) -> list[str]:
    """``argv`` run under the watchdog (module docstring); the caller starts it in a new
    session so the watchdog leads the group it kills."""
    return [sys.executable, "-I", "-S", "-c", WATCHDOG, str(os.getpid()), *argv]
