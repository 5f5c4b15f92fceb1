"""Running one command: own session, no stdin (or given bytes), a wall timeout, capped
output, limits.

Used by ``run_shell_command`` and by the recipe's setup and verify commands (which run
outside the policy). The command runs under ``bash -c`` in a new session (its own process
group); on timeout, on asyncio cancellation and when the command ends, the whole group is
killed, with every group led below it (:mod:`agentci.process_groups`), so nothing it started
outlives it. In the bubblewrap sandbox the whole PID
namespace goes with it. The parts that need no event loop (the limits, the capped output, the
result) are :mod:`agentci.childproc`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

from agentci.childproc import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_PROCESSES,
    CappedOutput,
    Launcher,
    ProcessResult,
    host_env,
    limited_argv,
)
from agentci.process_groups import RUNNING_GROUPS, kill_group
from agentci.reaper import dying_with_parent
from agentci.spawn import Child, spawn


async def _exit_status(proc: Child | asyncio.subprocess.Process) -> None:
    """Wait, a few seconds at most, for the exit status of a process whose group was killed.
    Not ``proc.wait()``: asyncio's also waits for the output pipe to close, which a process
    out of reach of the kill holds open for as long as it runs (a daemon, or a sandbox that
    outlived its bubblewrap, :mod:`agentci.process_groups`)."""
    for _ in range(100):
        if proc.returncode is not None:
            return
        await asyncio.sleep(0.05)


async def _feed(pipe: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write ``data`` to the child's stdin and close it; a child that exits first is fine."""
    if pipe is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.write(data)
        await pipe.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.close()


async def run_process(
    command: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    output_cap: int,
    sandbox: Launcher | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    max_processes: int = DEFAULT_MAX_PROCESSES,
    stdin: bytes | None = None,
    die_with_parent: bool = False,
) -> ProcessResult:
    """Run ``command`` with ``bash -c`` and return its exit code and capped output.

    stdout and stderr are merged. Output beyond ``output_cap`` bytes keeps its head and
    tail with a note in between; a command printing more than ``max_output_bytes`` is
    killed. ``timed_out`` is True when the wall ``timeout`` (seconds) ran out. stdin is
    ``/dev/null`` unless ``stdin`` bytes are given (hooks): they are written, then closed;
    a command that does not read them is not an error. With ``die_with_parent`` the
    command's group is killed also when agentci is (:mod:`agentci.reaper`; in the
    sandbox bubblewrap's ``--die-with-parent`` and PID namespace do it — the watchdog, whose
    parent there is bubblewrap, would end the command at once).
    """
    argv = limited_argv(command, max_file_bytes, max_processes)
    if die_with_parent and sandbox is None:
        argv = dying_with_parent(argv)
    start = time.monotonic()
    with contextlib.ExitStack() as launching:
        fds: tuple[int, ...] = ()
        if sandbox is not None:
            argv, fds = launching.enter_context(sandbox.launch(argv, cwd))
        child_env = dict(env) if sandbox is not None else host_env(env)
        starting: Coroutine[Any, Any, Child | asyncio.subprocess.Process]
        if stdin is None:  # started from a thread: the loop goes on meanwhile (agentci.spawn)
            starting = spawn(argv, cwd=cwd, env=child_env, pass_fds=fds)
        else:
            starting = asyncio.create_subprocess_exec(
                *argv,
                cwd=str(cwd),
                env=child_env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                pass_fds=fds,
            )
        creating: asyncio.Future[Child | asyncio.subprocess.Process]
        creating = asyncio.ensure_future(starting)
        try:  # the fds are closed once the child exists (it holds its own copies)
            proc = await asyncio.shield(creating)
        except asyncio.CancelledError:  # cancelled while starting: the child exists, end it too
            with contextlib.suppress(Exception):
                started = await creating
                kill_group(started.pid)
                await _exit_status(started)
            raise
    RUNNING_GROUPS.add(proc.pid)
    out = CappedOutput(output_cap, max_output_bytes)

    async def pump() -> None:
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):  # once limited: until the pipe closes
            if out.feed(chunk):
                kill_group(proc.pid)

    async def finish() -> int:
        # asyncio's wait() also waits for the pipe to close, which a background child
        # keeps open; so watch the exit code and end the group as soon as bash exits.
        while proc.returncode is None and not reader.done():
            await asyncio.wait({reader}, timeout=0.05)
        if proc.returncode is None:
            await proc.wait()
        kill_group(proc.pid)  # background children die with the command
        assert proc.returncode is not None
        return proc.returncode

    reader = asyncio.ensure_future(pump())
    feeder = asyncio.ensure_future(_feed(proc.stdin, stdin)) if stdin is not None else None
    timed_out = False
    code: int | None
    try:
        code = await asyncio.wait_for(finish(), timeout)
    except asyncio.TimeoutError:
        timed_out = True
        kill_group(proc.pid)
        await _exit_status(proc)
        code = None
    except BaseException:
        kill_group(proc.pid)
        RUNNING_GROUPS.discard(proc.pid)
        reader.cancel()
        if feeder is not None:
            feeder.cancel()
        with contextlib.suppress(BaseException):  # a second cancellation: leave now
            await _exit_status(proc)
        raise
    RUNNING_GROUPS.discard(proc.pid)
    if feeder is not None:
        feeder.cancel()
        with contextlib.suppress(BaseException):
            await feeder
    try:
        await asyncio.wait_for(reader, 2)
    except asyncio.TimeoutError:
        reader.cancel()
    return out.result(code, timed_out=timed_out, timeout=timeout, start=start)
