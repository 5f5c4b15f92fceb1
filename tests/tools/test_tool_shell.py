"""run_shell_command and run_process: exit codes, timeouts, process groups, caps, env."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tool_harness import Harness

from agentci.policy.env import child_env
from agentci.process import run_process
from agentci.testing.processes import pids_with


def test_nonzero_exit_is_a_successful_result(h: Harness) -> None:
    res = h.sh("echo out; echo err >&2; exit 3")
    assert res.error is None
    assert "Exit code: 3" in res.output and "out\nerr" in res.output
    resp = [e for e in h.events if e.type == "tool_call_response"][-1]
    assert resp.ok and resp.exit_code == 3


def test_the_result_does_not_repeat_the_command_or_its_folder(h: Harness) -> None:
    # the model's call, just above the result in the history, holds both
    res = h.sh("echo hello", dir_path="src")
    assert res.output == "Exit code: 0\nOutput:\nhello\n"


def test_dir_path_and_stdin_is_devnull(h: Harness, ws: Path) -> None:
    res = h.sh("pwd; cat; echo done", dir_path="src")  # `cat` ends at once on /dev/null's EOF
    assert f"{ws}/src" in res.output and "done" in res.output


def test_timeout_kills_the_whole_group(h: Harness) -> None:
    marker = "7.654321"
    res = h.sh(f"sleep {marker} & sleep {marker}; echo never", timeout_seconds=0.5)
    assert res.error and "timed out" in res.error
    assert "never" not in res.output.split("Output:", 1)[1]
    time.sleep(0.2)
    assert pids_with(marker) == []


def test_background_children_die_with_the_command(h: Harness) -> None:
    marker = "8.765432"
    res = h.sh(f"(sleep {marker} &) ; echo started")
    assert "started" in res.output and "Exit code: 0" in res.output
    time.sleep(0.2)
    assert pids_with(marker) == []


def test_cancellation_kills_the_group(ws: Path) -> None:
    marker = "9.876543"

    async def go() -> None:
        task = asyncio.ensure_future(
            run_process(f"sleep {marker}", cwd=ws, env=child_env(), timeout=30, output_cap=100)
        )
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    time.sleep(0.2)
    assert pids_with(marker) == []


def test_output_keeps_head_and_tail(ws: Path) -> None:
    res = asyncio.run(
        run_process("seq 1 100000", cwd=ws, env=child_env(), timeout=10, output_cap=200)
    )
    assert res.output.startswith("1\n2\n") and res.output.rstrip().endswith("100000")
    assert "bytes omitted" in res.output and res.exit_code == 0


def test_endless_output_is_killed(ws: Path) -> None:
    res = asyncio.run(
        run_process(
            "yes", cwd=ws, env=child_env(), timeout=20, output_cap=100, max_output_bytes=1 << 20
        )
    )
    assert res.output_limited and res.exit_code is None and len(res.output) < 400


def test_file_size_limit(ws: Path) -> None:
    res = asyncio.run(
        run_process(
            "head -c 3000000 /dev/zero > big; echo rc=$?",
            cwd=ws,
            env=child_env(),
            timeout=10,
            output_cap=1000,
            max_file_bytes=1 << 20,
        )
    )
    assert (ws / "big").stat().st_size <= 1 << 20
    assert "rc=0" not in res.output


def test_env_is_the_allowlist(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCI_CANARY_TOKEN", "canary-123")
    h.env = child_env()
    out = h.sh("env").output
    assert "canary-123" not in out and "GIT_TERMINAL_PROMPT=0" in out


def test_timeout_is_capped_by_the_task(h: Harness) -> None:
    h.timeout = 0.5
    res = h.sh("sleep 5", timeout_seconds=100)
    assert res.error and "timed out after 0.5s" in res.error


# A command started while another thread is alive (as in batch): Python code in the forked
# child before exec (a preexec_fn) could hang on a lock that thread held at the fork. An audit
# hook inherited by the child records any Python-level event the child raises before exec.
NO_PYTHON_IN_CHILD = """
import asyncio, os, sys, threading
from pathlib import Path

parent, log = os.getpid(), os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
sys.addaudithook(lambda event, args: os.getpid() != parent and os.write(log, event.encode() + b"\\n"))
from agentci.policy.env import child_env
from agentci.process import run_process

threading.Thread(target=threading.Event().wait, daemon=True).start()
res = asyncio.run(run_process("head -c 3000000 /dev/zero > big; echo rc=$?", cwd=Path(sys.argv[2]),
                              env=child_env(), timeout=30, output_cap=1000, max_file_bytes=1 << 20))
print((Path(sys.argv[2]) / "big").stat().st_size, res.output)
"""


def test_a_command_starts_without_python_code_in_the_forked_child(ws: Path, tmp_path: Path):
    log = tmp_path / "child-events.log"
    log.write_text("")
    done = subprocess.run([sys.executable, "-c", NO_PYTHON_IN_CHILD, str(log), str(ws)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert log.read_text() == ""
    size, output = done.stdout.split(" ", 1)
    assert int(size) <= 1 << 20 and "rc=0" not in output  # the file size limit still holds
