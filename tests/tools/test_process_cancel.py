"""run_process cancelled (a signal stopping the task) while its command has a process that left
the command's process group: the cancellation ends it and does not wait for its output pipe."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agentci.policy.env import child_env
from agentci.process import run_process
from agentci.testing.processes import running


def _wait_until(predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll ``predicate`` (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _cancel_when_started(command: str, ws: Path, pidfile: Path) -> bool:
    """Run ``command``, cancel it once ``pidfile`` names the process that left the group;
    True when the cancellation was over within a minute (a hang is cut short there)."""

    async def go() -> bool:
        task = asyncio.ensure_future(
            run_process(command, cwd=ws, env=child_env(), timeout=600, output_cap=100)
        )
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert not task.done(), task
            await asyncio.sleep(0.02)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=60)
        return task in done

    return asyncio.run(go())


def test_cancelling_kills_a_process_that_left_the_group(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    pidfile = tmp_path / "pid"
    # a child in a session of its own, as bubblewrap's sandbox is (--new-session), holding the
    # output pipe; the command waits for it
    command = f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' & wait"
    try:
        over = _cancel_when_started(command, ws, pidfile)
        pid = int(pidfile.read_text())
        _wait_until(lambda: not running(pid), "the process that left the group to end")
    finally:
        with contextlib.suppress(ValueError, OSError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert over


#: A run of run_process cancelled once the daemon has written its pid; prints whether the
#: cancellation was over within a minute. In a process of its own: the daemon still holds the
#: pipe of the abandoned output when the event loop closes, which asyncio complains about.
CANCEL_DAEMON = """
import asyncio, sys
from pathlib import Path
from agentci.policy.env import child_env
from agentci.process import run_process
from agentci.testing.processes import running
ws, pidfile, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
async def go():
    task = asyncio.ensure_future(
        run_process(command, cwd=ws, env=child_env(), timeout=600, output_cap=100))
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.02)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=60)
    print("over" if task in done else "still waiting", flush=True)
asyncio.run(go())
"""


def test_cancelling_does_not_wait_for_a_daemon_that_holds_the_output(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    pidfile = tmp_path / "pid"
    # forked twice: no longer below the command, out of reach of the kill, holding the pipe
    command = f"(setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' &); sleep 300"
    try:
        ran = subprocess.run(
            [sys.executable, "-c", CANCEL_DAEMON, str(ws), str(pidfile), command],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
    finally:
        with contextlib.suppress(ValueError, OSError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert ran.stdout == "over\n", ran.stderr
