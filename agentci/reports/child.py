"""Write the outputs in a forked child process, so a signal can stop it at once.

Redacting a large patch is one long regular-expression pass that holds the interpreter lock for
its whole length (a minute for 60 MB on a busy machine): in a thread, the main thread could not
even run its signal handler meanwhile. A child process has its own interpreter: the event loop
stays free, and on a signal the child is killed and the run's end written as ``cancelled``.

The child is forked only while agentci has one thread: it inherits the report and the patches
as they are in memory (no copy, no pickling). With other threads alive (``batch``, a thread pool
still running) a fork could copy a lock another thread holds and hang the child, so a new
interpreter is started instead and the report comes on its stdin, pickled. That interpreter is
``python -I -S -c BOOTSTRAP``: no ``site`` (so no ``.pth`` file of agentci's environment, such as
a project's editable install naming its ``src/`` in the workspace, and no ``sitecustomize``) and
a ``sys.path`` of the standard library only until :data:`BOOTSTRAP` has set it to agentci's own
(already without the workspace's folders) — nothing the agent wrote can be imported at any point,
not even a module the standard library looks for and Linux lacks (``org``, ``msvcrt``). Either way the child calls :func:`~agentci.reports.writer.write_outputs` and
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
    # agentci's sys.path (plain strings, without the workspace's folders agentci removed at the
    # start) and package folder first: the new interpreter reads no .pth file (see BOOTSTRAP)
    where = (list(map(str, sys.path)), str(Path(__file__).parents[1]))
    data = pickle.dumps(where) + pickle.dumps((out_dir, run, patches, redactor, optional))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-S", "-c", BOOTSTRAP,
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


#: What the new interpreter runs (``-I -S``: its ``sys.path`` is the standard library's): it
#: reads agentci's ``sys.path`` and the folder of the ``agentci`` package from stdin before it
#: imports anything outside the standard library, loads the package from that folder (an
#: editable install finds it through an import hook its ``.pth`` installs, which ``-S`` skips),
#: then this module, whose :func:`main` reads the report.
BOOTSTRAP = """\
import importlib.util, pickle, sys
path, package = pickle.load(sys.stdin.buffer)
sys.path[:] = path
sys.path_importer_cache.clear()
spec = importlib.util.spec_from_file_location(
    "agentci", package + "/__init__.py", submodule_search_locations=[package]
)
sys.modules["agentci"] = module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from agentci.reports.child import main
main()
"""


def main() -> None:
    """The new interpreter's side, after :data:`BOOTSTRAP` set agentci's ``sys.path``: the
    pickled report on stdin, the JSON list on stdout."""
    stream = sys.stdin.buffer
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
