"""One sandbox, many commands: the mounts and switches are worked out once per sandbox and
reused, and every command still gets its own socket filter and working folder."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from listener import HostSocket
from tool_harness import Harness, bwrap_sandbox

from agentci.policy.sandbox import Sandbox

CLOSING = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL",
           "--die-with-parent", "--new-session"]  # fmt: skip


def test_each_command_line_has_its_own_filter_folder_and_command() -> None:
    box = Sandbox(Path("/w"), bwrap="bwrap", readonly=(Path("/w/.git"),))
    mounts = ["bwrap", "--unshare-user-try", "--ro-bind", "/", "/", "--dev", "/dev",
              "--proc", "/proc", "--tmpfs", "/tmp", "--bind", "/w", "/w",
              "--ro-bind", "/w/.git", "/w/.git", "--unshare-net"]  # fmt: skip
    first = box.wrap(["cat", "a"], Path("/w"), seccomp_fd=5)
    second = box.wrap(["ls"], Path("/w/src"), seccomp_fd=9)
    assert first == [*mounts, "--seccomp", "5", *CLOSING, "--chdir", "/w", "--", "cat", "a"]
    assert second == [*mounts, "--seccomp", "9", *CLOSING, "--chdir", "/w/src", "--", "ls"]


def test_another_sandbox_made_from_one_gets_its_own_mounts() -> None:
    box = Sandbox(Path("/w"), bwrap="bwrap")
    box.wrap(["true"], Path("/w"), seccomp_fd=5)  # the first sandbox's mounts are worked out
    wider = box.but(network=True, writable=[Path("/cache")])
    assert wider.wrap(["true"], Path("/w"), seccomp_fd=5) == [
        "bwrap", "--unshare-user-try", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--tmpfs", "/tmp", "--bind", "/w", "/w", "--bind", "/cache", "/cache",
        "--seccomp", "5", *CLOSING, "--chdir", "/w", "--", "true",
    ]  # fmt: skip


@pytest.fixture
def host_socket() -> Iterator[HostSocket]:
    folder = Path(tempfile.mkdtemp(prefix="agentci-sock-", dir="/var/tmp"))  # not /tmp
    sock = HostSocket(folder / "docker.sock")
    yield sock
    sock.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_every_command_of_one_sandbox_is_refused_a_host_socket(
    ws: Path, host_socket: HostSocket
) -> None:
    h = Harness(ws=ws, mode="yolo", sandbox=bwrap_sandbox(ws))
    command = host_socket.connect_command()
    first = h.run([("run_shell_command", {"command": command}) for _ in range(3)])
    later = h.run([("run_shell_command", {"command": command})])
    outputs = [r.output for r in first + later]
    assert [("Exit code: 1" in o, "Address family not supported" in o) for o in outputs] == [
        (True, True)
    ] * 4
    assert host_socket.got == []
