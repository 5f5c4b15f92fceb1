"""Running one command: own session, no stdin (or given bytes), a wall timeout, capped
output, limits.

Used by ``run_shell_command`` and by the recipe's setup and verify commands (which run
outside the policy). The command runs under ``bash -c`` in a new session (its own process
group); on timeout, on asyncio cancellation and when the command ends, the whole group is
killed, so nothing it started outlives it. In the bubblewrap sandbox the whole PID
namespace goes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentci.reaper import dying_with_parent

#: Python's bytecode prefix for the commands agentci starts (``PYTHONPYCACHEPREFIX``, set by
#: :data:`agentci.policy.env.NO_CACHES`): a folder in the sandbox's own private ``/tmp``, where
#: the sandbox shows agentci's bytecode store (:mod:`agentci.policy.pyc_cache`).
SANDBOX_PYCACHE_PREFIX = "/tmp/agentci-pycache"
#: The same prefix for a command that runs on the host (no sandbox: the first setup, hooks,
#: ``sandbox: none``): a path under which nothing can be created. The host's ``/tmp`` is
#: shared by every run and user of the machine, so a folder there would let the code one run
#: starts (the agent's, or another user's) leave bytecode that a later run imports; with this
#: one Python reads and writes no bytecode and compiles from source.
HOST_PYCACHE_PREFIX = os.devnull


class Launcher(Protocol):
    """Starts a command inside something: the bubblewrap sandbox
    (:class:`agentci.policy.sandbox.Sandbox`)."""

    def launch(
        self, argv: Sequence[str], cwd: Path
    ) -> AbstractContextManager[tuple[list[str], tuple[int, ...]]]:
        """The command line to start instead of ``argv`` and the descriptors it inherits."""
        ...


def omitted_note(count: int, unit: str = "characters") -> str:
    """The marker put where output was dropped."""
    return f"\n[... {count} {unit} omitted ...]\n"


class HeadTailBuffer:
    """Collects a byte stream keeping the first and last ``cap // 2`` bytes.

    Memory stays bounded whatever the stream's length; :meth:`text` joins both ends
    with a note giving how many bytes were dropped.
    """

    def __init__(self, cap: int) -> None:
        self.cap = max(cap, 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Add a chunk of the stream."""
        self.total += len(data)
        half = self.cap // 2
        room = half - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            keep = self.cap - half
            if len(self._tail) > keep:
                del self._tail[: len(self._tail) - keep]

    @property
    def dropped(self) -> int:
        """Bytes seen but not kept."""
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        """The kept output, decoded as UTF-8 (invalid bytes replaced)."""
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if self.dropped:
            return head + omitted_note(self.dropped, "bytes") + tail
        return head + tail


#: Largest file a command may write (RLIMIT_FSIZE), in bytes.
DEFAULT_MAX_FILE_BYTES = 1 << 30
#: A command printing more than this is killed (its output is capped anyway).
DEFAULT_MAX_OUTPUT_BYTES = 64 << 20
#: Processes per user (RLIMIT_NPROC; not enforced for root, where the timeout is the limit).
DEFAULT_MAX_PROCESSES = 4096


@dataclass
class ProcessResult:
    """What a command did: exit code (None when killed by us), capped output, timing."""

    exit_code: int | None
    output: str
    timed_out: bool
    duration_ms: int
    output_limited: bool = False


def host_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a command that runs on the host: the sandbox's bytecode prefix is
    :data:`HOST_PYCACHE_PREFIX` there (a prefix the recipe passes itself is kept)."""
    out = dict(env)
    if out.get("PYTHONPYCACHEPREFIX") == SANDBOX_PYCACHE_PREFIX:
        out["PYTHONPYCACHEPREFIX"] = HOST_PYCACHE_PREFIX
    return out


def _limited(command: str, max_file_bytes: int, max_processes: int) -> list[str]:
    """``bash -c command`` under resource limits set by bash itself (``ulimit``, then ``exec``
    of the command's own bash), so the fork of a threaded agentci runs no Python code before
    exec (no ``preexec_fn``: a lock another thread held at the fork could hang the child).
    A limit above the hard one is left as it is."""
    blocks = max(1, max_file_bytes // 1024)  # bash's ulimit -f counts 1024-byte blocks
    _soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    nproc = max_processes if hard == resource.RLIM_INFINITY else min(max_processes, hard)
    prelude = (
        f"ulimit -f {blocks} 2>/dev/null; ulimit -c 0 2>/dev/null; "
        f'ulimit -u {nproc} 2>/dev/null; exec bash -c "$1"'
    )
    return ["bash", "-c", prelude, "bash", command]


#: Process groups of the commands running now (a second signal kills them before exiting).
RUNNING_GROUPS: set[int] = set()


def kill_running_groups() -> None:
    """Kill every command still running (used when agentci must exit at once), including one
    still being started: any child of ours that leads its own process group."""
    pids = set(RUNNING_GROUPS)
    children: list[int] = []
    with contextlib.suppress(OSError):  # Linux; elsewhere the registry alone
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            children += [int(c) for c in (task / "children").read_text().split()]
    for child in children:
        with contextlib.suppress(OSError):
            if os.getpgid(child) == child:
                pids.add(child)
    for pid in pids:
        _kill_group(pid)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


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
    argv = _limited(command, max_file_bytes, max_processes)
    if die_with_parent and sandbox is None:
        argv = dying_with_parent(argv)
    start = time.monotonic()
    with contextlib.ExitStack() as launching:
        fds: tuple[int, ...] = ()
        if sandbox is not None:
            argv, fds = launching.enter_context(sandbox.launch(argv, cwd))
        creating = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *argv,
                cwd=str(cwd),
                env=dict(env) if sandbox is not None else host_env(env),
                stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                pass_fds=fds,
            )
        )
        try:  # the fds are closed once the child exists (it holds its own copies)
            proc = await asyncio.shield(creating)
        except asyncio.CancelledError:  # cancelled while starting: the child exists, end it too
            with contextlib.suppress(Exception):
                started = await creating
                _kill_group(started.pid)
                await started.wait()
            raise
    RUNNING_GROUPS.add(proc.pid)
    buf = HeadTailBuffer(output_cap)
    limited = False

    async def pump() -> None:
        nonlocal limited
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):
            if limited:
                continue  # drain until the killed group closes the pipe
            buf.feed(chunk)
            if buf.total > max_output_bytes:
                limited = True
                _kill_group(proc.pid)

    async def finish() -> int:
        # asyncio's wait() also waits for the pipe to close, which a background child
        # keeps open; so watch the exit code and end the group as soon as bash exits.
        while proc.returncode is None and not reader.done():
            await asyncio.wait({reader}, timeout=0.05)
        if proc.returncode is None:
            await proc.wait()
        _kill_group(proc.pid)  # background children die with the command
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
        _kill_group(proc.pid)
        for _ in range(100):  # not proc.wait(): an escaped child may hold the pipe
            if proc.returncode is not None:
                break
            await asyncio.sleep(0.05)
        code = None
    except BaseException:
        _kill_group(proc.pid)
        RUNNING_GROUPS.discard(proc.pid)
        reader.cancel()
        if feeder is not None:
            feeder.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.shield(proc.wait())
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
    if limited:
        code = None
    output = buf.text()
    if limited:
        output += f"\n[killed: output exceeded {max_output_bytes} bytes]"
    if timed_out:
        output += f"\n[killed: timed out after {timeout:g}s]"
    return ProcessResult(
        exit_code=code,
        output=output,
        timed_out=timed_out,
        duration_ms=int((time.monotonic() - start) * 1000),
        output_limited=limited,
    )
