"""Attacks the policy lets through (yolo) that the sandbox and limits must stop.

These run real commands under bubblewrap and skip, with the reason, where it is missing.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from listener import Listener
from tool_harness import Harness, bwrap_sandbox

from agentci.policy.env import child_env
from agentci.policy.sandbox import make_sandbox
from agentci.testing.processes import pids_with


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


@pytest.fixture
def boxed(h: Harness, ws: Path) -> Harness:
    h.mode = "yolo"
    h.sandbox = bwrap_sandbox(ws)
    return h


@pytest.mark.parametrize(
    "command",
    [
        "curl -s -m 3 -d @/etc/hostname http://127.0.0.1:{port}/",
        f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {{port}}), 3)"
        ".sendall(b'leak')\"",
        "echo leak > /dev/tcp/127.0.0.1/{port}",
    ],
)
def test_network_is_off(boxed: Harness, listener: Listener, command: str) -> None:
    res = boxed.sh(command.format(port=listener.port))
    assert "Exit code: 0" not in res.output
    time.sleep(0.1)
    assert listener.connections == 0 and listener.received == b""


def test_network_on_when_the_recipe_says_so(h: Harness, ws: Path, listener: Listener) -> None:
    h.sandbox = bwrap_sandbox(ws, network=True)
    res = h.sh(f"curl -s -m 3 -d hello http://127.0.0.1:{listener.port}/ ; true")
    assert "Exit code: 0" in res.output
    deadline = time.monotonic() + 3
    while not listener.received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert b"hello" in listener.received


def test_io_uring_cannot_be_set_up(boxed: Harness) -> None:
    """io_uring could open and connect a socket without the socket system call."""
    setup = (
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
        "fd = libc.syscall(425, 8, ctypes.create_string_buffer(120)); "
        "print('io_uring', fd, os.strerror(ctypes.get_errno()))"
    )
    res = boxed.sh(f'{sys.executable} -c "{setup}"')
    assert "io_uring -1 Operation not permitted" in res.output, res.output


def test_stream_socketpairs_and_asyncio_still_work(boxed: Harness) -> None:
    code = (
        "import asyncio, socket; a, b = socket.socketpair(); a.sendall(b'ok'); "
        "print(b.recv(2).decode(), asyncio.run(asyncio.sleep(0, 'loop')))"
    )
    res = boxed.sh(f'{sys.executable} -c "{code}"')
    assert "ok loop" in res.output, res.output


def test_root_is_read_only_and_workspace_writable(boxed: Harness, ws: Path) -> None:
    res = boxed.sh("touch /etc/agentci-pwned /usr/agentci-pwned; echo ok > inside.txt")
    assert not Path("/etc/agentci-pwned").exists() and not Path("/usr/agentci-pwned").exists()
    assert (ws / "inside.txt").read_text() == "ok\n", res.output


def test_protected_paths_are_read_only_inside(boxed: Harness, ws: Path) -> None:
    before = (ws / ".git/config").read_bytes()
    boxed.sh("cp README.md .git/config; printf x | tee -a .git/config; rm -rf .git/hooks")
    assert (ws / ".git/config").read_bytes() == before
    assert (ws / ".git/hooks").exists()


def test_private_tmp(boxed: Harness, tmp_path: Path) -> None:
    marker = Path("/tmp/agentci-sandbox-marker")
    boxed.sh(f"echo x > {marker}")
    assert not marker.exists()


def test_host_tmp_is_invisible_except_the_tool_folders(ws: Path, tmp_path: Path) -> None:
    bwrap_sandbox(ws)  # skips when bubblewrap does not work here
    secret = Path(tempfile.mkdtemp(prefix="agentci-host-tmp-")) / "token.txt"
    secret.write_text("host-temp-secret\n")
    venv = Path(tempfile.mkdtemp(prefix="agentci-venv-"))
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    env = {**child_env(), "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "VIRTUAL_ENV": str(venv)}
    box, warning = make_sandbox("bwrap", workspace=ws, network=False, env=env)
    assert warning is None and box is not None
    assert venv.resolve() in box.tmp_tools
    h = Harness(ws=ws, mode="yolo", sandbox=box)
    out = h.sh(f"cat {secret}; ls {venv}; touch {venv}/written").output
    assert "host-temp-secret" not in out and "pyvenv.cfg" in out
    assert not (venv / "written").exists()  # read-only


def test_parent_environment_is_invisible(boxed: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_canary_abc")
    monkeypatch.setenv("GEMINI_API_KEY", "canary-key-xyz")
    boxed.env = child_env()
    out = boxed.sh(
        "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/1/environ"
    ).output
    assert "ghp_canary_abc" not in out and "canary-key-xyz" not in out


def test_secrets_do_not_reach_unsandboxed_tools_either(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_canary_abc")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "rt_canary")
    monkeypatch.setenv("MY_SERVICE_PASSWORD", "pw_canary")
    h.env = child_env()
    out = h.sh("env").output
    assert "canary" not in out


def test_nothing_outlives_the_sandbox(boxed: Harness) -> None:
    marker = "6.5432109"
    boxed.timeout = 1
    res = boxed.sh(f"for i in 1 2 3 4 5 6 7 8; do (setsid sleep {marker} &); done; sleep {marker}")
    assert res.error and "timed out" in res.error
    time.sleep(0.3)
    assert pids_with(marker) == []


def test_endless_output_is_stopped(boxed: Harness) -> None:
    boxed.output_cap = 1000
    res = boxed.sh("yes pwned")
    assert res.error and len(res.output) < 2000


def test_sandbox_modes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert make_sandbox("none", workspace=tmp_path, network=False) == (None, None)
    box, warning = make_sandbox("auto", workspace=tmp_path, network=False)
    assert (box is None) == (warning is not None)
    if box is not None:
        box.cleanup()
