"""Starting a command without holding up the event loop (used by :mod:`agentci.process`).

``asyncio.create_subprocess_exec`` forks and execs in the event loop's thread and waits there
until the child has called ``exec``: on a busy 2-core machine that is 5-15 ms per command, one
command after the other, so the eight read-only commands of one turn started one by one while
nothing else ran. :func:`spawn` starts the process in a thread of its own (the fork and exec
release the interpreter lock), which stays until the process has exited and reaps it; the
output is read through the loop.

The thread is not from a pool: a pool's idle threads would outlive the command and keep a run
from writing its outputs in a forked child (:mod:`agentci.run.workers`), and a pool's thread
that ended while its command ran would take the command with it (``--die-with-parent``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentci.process_groups import start_in_session


class Child:
    """A started command: the part of ``asyncio.subprocess.Process`` that
    :func:`agentci.process.run_process` uses (no stdin: it reads ``/dev/null``)."""

    stdin: asyncio.StreamWriter | None = None

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdout: asyncio.StreamReader,
        exited: asyncio.Future[int],
    ) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdout = stdout
        self._exited = exited

    @property
    def returncode(self) -> int | None:
        """The exit code (``-N`` for signal N) once the command has exited, else None."""
        return self._exited.result() if self._exited.done() else None

    async def wait(self) -> int:
        """Wait for the command itself to exit (not for its output pipe to close)."""
        return await asyncio.shield(self._exited)


async def spawn(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], pass_fds: Sequence[int]
) -> Child:
    """Start ``argv`` in a new session with stdin from ``/dev/null`` and stdout and stderr
    into one pipe, from a thread; ``pass_fds`` stay open until it has started."""
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[int] = loop.create_future()
    popen = await _in_thread(
        loop, lambda: start_in_session(argv, cwd=cwd, env=env, pass_fds=pass_fds), exited
    )
    try:
        reader = asyncio.StreamReader()
        assert popen.stdout is not None
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stdout)
        return Child(popen, reader, exited)
    except BaseException:
        _kill(popen)
        raise


def _kill(popen: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, signal.SIGKILL)


def _in_thread(
    loop: asyncio.AbstractEventLoop,
    start: Callable[[], subprocess.Popen[bytes]],
    exited: asyncio.Future[int],
) -> asyncio.Future[subprocess.Popen[bytes]]:
    """``start()`` in a new daemon thread, which then waits for the process to exit: the
    thread that starts a process is its parent for ``PR_SET_PDEATHSIG`` (bubblewrap's
    ``--die-with-parent``, :mod:`agentci.reaper`), which would kill the command as soon as
    a thread that only started it ended. The process (or the exception) and then the exit
    code are handed to the loop."""
    started: asyncio.Future[subprocess.Popen[bytes]] = loop.create_future()

    def deliver(future: asyncio.Future[Any], outcome: Any, failed: bool) -> None:
        if future.done():  # cancelled: nobody waits for the command, it must not run on
            if future is started and not failed:
                _kill(outcome)
            return
        if failed:
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    def work() -> None:
        try:
            popen = start()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(deliver, started, exc, True)
            return
        try:
            loop.call_soon_threadsafe(deliver, started, popen, False)
        except RuntimeError:  # the loop is closed: nobody will end the command
            _kill(popen)
        code = popen.wait()
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(deliver, exited, code, False)

    threading.Thread(target=work, name="agentci-spawn", daemon=True).start()
    return started
