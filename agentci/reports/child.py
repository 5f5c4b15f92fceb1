"""Write the outputs in a forked child process, so a signal can stop it at once.

Redacting a large patch is one long regular-expression pass that holds the interpreter lock for
its whole length (a minute for 60 MB on a busy machine): in a thread, the main thread could not
even run its signal handler meanwhile. A child process has its own interpreter: the event loop
stays free, and on a signal the child is killed and the run's end written as ``cancelled``.

The child is forked only while agentci has one thread: it inherits the report and the patches
as they are in memory (no copy, no pickling). With other threads alive (``batch``, a thread pool
still running) a fork could copy a lock another thread holds and hang the child, so a new
interpreter is started instead (``python -I -m agentci.reports.child``) and the report comes on
its stdin, pickled. Either way the child calls :func:`~agentci.reports.writer.write_outputs` and
sends back the list of files it could not write as JSON. A forked child first freezes the heap
it inherits (``gc.freeze()``): a collection that walked the parent's objects would write to
their pages and make the kernel copy most of the heap (about half of the child's CPU time). Every file is written atomically, so a
killed child leaves each output either as it was or complete; its temp files are removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import pickle
import signal
import sys
import threading
from pathlib import Path

from agentci.reports.atomic import TEMP_MARKER
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport
from agentci.reports.writer import OPTIONAL_OUTPUTS, write_outputs


def _child(  # noqa: ANN202 - never returns
    write_fd: int,
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str],
    rd: Redactor,
    optional: frozenset[str],
):
    code = 0
    gc.freeze()  # the parent's objects: no collection here walks them (see the module doc)
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)  # the parent decides; a signal just ends the child
        failed = write_outputs(out_dir, run, patches, rd, optional=optional)
        os.write(write_fd, json.dumps(failed).encode("utf-8"))
    except BaseException:  # noqa: BLE001 - the parent reports what is missing
        code = 70
    os._exit(code)


async def write_outputs_in_child(
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str],
    redactor: Redactor,
    optional: frozenset[str] = OPTIONAL_OUTPUTS,
) -> list[str]:
    """:func:`write_outputs` in a child process; cancelling the await kills the child."""
    if threading.active_count() > 1:
        return await _in_new_interpreter(out_dir, run, patches, redactor, optional)
    return await _in_fork(out_dir, run, patches, redactor, optional)


async def _in_new_interpreter(
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str],
    redactor: Redactor,
    optional: frozenset[str],
) -> list[str]:
    # agentci's sys.path first (plain strings): the new interpreter's own holds again what
    # .pth files name, such as a project's editable src/ that agentci removed at the start
    data = pickle.dumps(list(sys.path)) + pickle.dumps((out_dir, run, patches, redactor, optional))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-m", "agentci.reports.child",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    finished = False
    try:
        answer, _ = await proc.communicate(data)
        finished = True
    finally:
        if not finished:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(BaseException):
                await asyncio.shield(proc.wait())
            _remove_temp_files(out_dir, proc.pid)
    if proc.returncode != 0 or not answer:
        return [f"{out_dir}: the process writing the outputs failed"]
    return list(json.loads(answer))


def main() -> None:
    """The new interpreter's side: agentci's ``sys.path`` then the pickled report on stdin
    (the path is in force before anything is unpickled or imported), the JSON list on stdout."""
    stream = sys.stdin.buffer
    sys.path[:] = [str(p) for p in pickle.load(stream)]  # noqa: S301 - our parent's
    sys.path_importer_cache.clear()
    out_dir, run, patches, redactor, optional = pickle.load(stream)  # noqa: S301 - our parent's
    _child(sys.stdout.fileno(), out_dir, run, patches, redactor, optional)


async def _in_fork(
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str],
    redactor: Redactor,
    optional: frozenset[str],
) -> list[str]:
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, out_dir, run, patches, redactor, optional)
    os.close(write_fd)
    done: asyncio.Future[bytes] = loop.create_future()
    chunks: list[bytes] = []

    def readable() -> None:
        data = os.read(read_fd, 65536)
        if data:
            chunks.append(data)
        elif not done.done():
            done.set_result(b"".join(chunks))

    loop.add_reader(read_fd, readable)
    finished = False
    try:
        data = await done
        finished = True
    finally:
        loop.remove_reader(read_fd)
        os.close(read_fd)
        if not finished:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if not finished:
            _remove_temp_files(out_dir, pid)
    if os.waitstatus_to_exitcode(status) != 0 or not data:
        return [f"{out_dir}: the process writing the outputs failed"]
    return list(json.loads(data))


def _remove_temp_files(out_dir: Path, pid: int) -> None:
    for path in Path(out_dir).rglob(f".*{TEMP_MARKER}{pid}-*"):
        with contextlib.suppress(OSError):
            path.unlink()


if __name__ == "__main__":
    main()
