"""A child command's parts that need no event loop: the command line under limits, capped
output, the result, and the registry of running process groups; and :func:`run_blocking`,
one command run to its end without asyncio, for a caller that has no event loop and must not
pay for importing one (the pre-commit hook's clean path, :mod:`agentci.precommit.quick`).
:func:`agentci.process.run_process` is the same run inside an event loop, used everywhere else.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentci.process_groups import RUNNING_GROUPS, kill_group, start_in_session

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


class CappedOutput:
    """A command's output as it is read: its head and tail kept (:class:`HeadTailBuffer` of
    ``cap`` bytes) until more than ``limit`` bytes came, then dropped; and the command's
    :class:`ProcessResult`. Both ways of running a command use it (:func:`run_blocking`,
    :func:`agentci.process.run_process`)."""

    def __init__(self, cap: int, limit: int) -> None:
        self._buf = HeadTailBuffer(cap)
        self.limit = limit
        #: True once the output went past ``limit`` (the command is then killed)
        self.limited = False

    def feed(self, chunk: bytes) -> bool:
        """Keep ``chunk`` (nothing once limited); True when it took the output past the
        limit: the caller kills the command's group."""
        if self.limited:
            return False
        self._buf.feed(chunk)
        self.limited = self._buf.total > self.limit
        return self.limited

    def result(
        self, exit_code: int | None, *, timed_out: bool, timeout: float, start: float
    ) -> ProcessResult:
        """The command's result: no exit code when it was killed for its output or its time
        (``timeout`` seconds), which a line after the output says; ``start`` is its
        ``time.monotonic()`` start."""
        output = self._buf.text()
        if self.limited:
            output += f"\n[killed: output exceeded {self.limit} bytes]"
        if timed_out:
            output += f"\n[killed: timed out after {timeout:g}s]"
        return ProcessResult(
            exit_code=None if self.limited or timed_out else exit_code,
            output=output,
            timed_out=timed_out,
            duration_ms=int((time.monotonic() - start) * 1000),
            output_limited=self.limited,
        )


def host_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a command that runs on the host: the sandbox's bytecode prefix is
    :data:`HOST_PYCACHE_PREFIX` there (a prefix the recipe passes itself is kept)."""
    out = dict(env)
    if out.get("PYTHONPYCACHEPREFIX") == SANDBOX_PYCACHE_PREFIX:
        out["PYTHONPYCACHEPREFIX"] = HOST_PYCACHE_PREFIX
    return out


def limited_argv(command: str, max_file_bytes: int, max_processes: int) -> list[str]:
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


#: Seconds between looks at ``stop`` and the child's exit while :func:`run_blocking` waits.
POLL_SECONDS = 0.05


def run_blocking(
    command: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    output_cap: int,
    sandbox: Launcher,
    stop: Callable[[], bool],
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    max_processes: int = DEFAULT_MAX_PROCESSES,
) -> ProcessResult | None:
    """:func:`agentci.process.run_process` for a command in ``sandbox`` with no stdin, without
    an event loop: the same command line, session, limits, output cap and timeout, the group
    killed when the command ends. ``stop`` is asked at least every :data:`POLL_SECONDS`
    (a signal handler sets what it reads); when it says so the group is killed and the answer
    is None, as a cancelled ``run_process`` raises."""
    start = time.monotonic()
    deadline = start + timeout
    argv = limited_argv(command, max_file_bytes, max_processes)
    with sandbox.launch(argv, cwd) as (wrapped, fds):  # the fds close once the child has them
        proc = start_in_session(wrapped, cwd=cwd, env=env, pass_fds=fds)
    RUNNING_GROUPS.add(proc.pid)
    assert proc.stdout is not None
    pipe = proc.stdout.fileno()
    os.set_blocking(pipe, False)
    out = CappedOutput(output_cap, max_output_bytes)
    timed_out = stopped = False
    with selectors.DefaultSelector() as watch:
        watch.register(pipe, selectors.EVENT_READ)

        def drain(until: float) -> bool:
            """Read what is there (waiting at most until ``until``); False at end of file."""
            for _ in watch.select(max(0.0, min(POLL_SECONDS, until - time.monotonic()))):
                try:
                    chunk = os.read(pipe, 65536)
                except BlockingIOError:
                    return True
                if not chunk:
                    return False
                if out.feed(chunk):
                    kill_group(proc.pid)
            return True

        try:
            # as run_process: the command ends when bash exits or the pipe closes, whichever
            # comes first (a background child may keep the pipe open)
            is_open = True
            while proc.poll() is None and is_open:
                if stop():
                    stopped = True
                    break
                if time.monotonic() >= deadline:
                    timed_out = True
                    break
                is_open = drain(deadline)
            while not (stopped or timed_out) and proc.returncode is None:
                if stop():
                    stopped = True
                elif time.monotonic() >= deadline:
                    timed_out = True
                else:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(POLL_SECONDS)
            kill_group(proc.pid)  # background children die with the command
            if stopped:
                proc.wait()
                return None
            if timed_out:
                for _ in range(100):  # not an unbounded wait: an escaped child may hold the pipe
                    if proc.poll() is not None:
                        break
                    time.sleep(POLL_SECONDS)
            end = time.monotonic() + 2
            while is_open and time.monotonic() < end:
                is_open = drain(end)
        finally:
            RUNNING_GROUPS.discard(proc.pid)
            proc.stdout.close()
    return out.result(proc.returncode, timed_out=timed_out, timeout=timeout, start=start)
