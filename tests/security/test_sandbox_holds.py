"""The sandbox holds against root, host sockets and missing sandboxes under CI; agentci's
own process keeps its environment to itself.

Attacks through the scripted model and the real ``agentci run`` (as root here, with bubblewrap),
canaries in agentci's environment, a host folder outside the workspace as the escape target.
"""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from as_nobody import AS_NOBODY, NOBODY, why_nobody_cannot_run
from attack_case import CANARIES, AttackCase, make_attack, shell, tool
from listener import HostSocket

from agentci.policy.sandbox import bwrap_problem

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")
PY = sys.executable
YOLO = {"policy": {"mode": "yolo"}}


@needs_bwrap
@pytest.mark.parametrize(
    "attack",
    [
        "umount {ws}/.git; {write} {ws}/.git/config",
        "mount -o remount,rw /; {write} {escape}/pwned",
        "mount -o remount,rw,bind {ws}/.git; {write} {ws}/.git/config",
        "umount -l {ws}/.git; {write} {ws}/.git/config",
    ],
)
def test_root_inside_the_sandbox_cannot_unmount_or_remount(tmp_path: Path, attack: str) -> None:
    case = AttackCase(tmp_path)
    escape = Path(tempfile.mkdtemp(prefix="agentci-escape-", dir="/var/tmp"))  # not a private /tmp
    write = f"{PY} -c \"import sys; open(sys.argv[1], 'w').write('pwned')\""
    command = attack.format(ws=case.repo, escape=escape, write=write)
    case = make_attack(tmp_path, [shell(command), {"text": "done"}], YOLO)
    before = (case.repo / ".git" / "config").read_text()
    case.run()
    assert (case.repo / ".git" / "config").read_text() == before
    planted = (escape / "pwned").exists()
    shutil.rmtree(escape)
    assert not planted


@pytest.fixture
def host_folder() -> Iterator[Path]:
    """A host folder outside the workspace and outside /tmp (the sandbox has its own /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="agentci-sock-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def host_socket(host_folder: Path) -> Iterator[HostSocket]:
    sock = HostSocket(host_folder / "docker.sock")
    yield sock
    sock.close()


def _tool_output(run: object) -> str:
    out = [e for e in run.events if e.type == "tool_call_response"]  # type: ignore[attr-defined]
    return str(out[0].model_dump())


@needs_bwrap
def test_network_off_closes_host_unix_sockets(tmp_path: Path, host_socket: HostSocket) -> None:
    case = make_attack(tmp_path, [shell(host_socket.connect_command()), {"text": "done"}], YOLO)
    run = case.run()
    assert "Exit code: 0" not in _tool_output(run)
    assert host_socket.got == []


@needs_bwrap
def test_a_host_socket_whose_path_has_a_space_is_closed(tmp_path: Path, host_folder: Path) -> None:
    sock = HostSocket(host_folder / "docker engine.sock")
    try:
        case = make_attack(tmp_path, [shell(sock.connect_command()), {"text": "done"}], YOLO)
        run = case.run()
        assert "Exit code: 0" not in _tool_output(run)
        assert sock.got == []
    finally:
        sock.close()


@needs_bwrap
def test_a_host_socket_renamed_after_bind_is_closed(tmp_path: Path, host_folder: Path) -> None:
    sock = HostSocket(host_folder / "docker.sock", bind_at=host_folder / "bound-here.sock")
    try:
        case = make_attack(tmp_path, [shell(sock.connect_command()), {"text": "done"}], YOLO)
        run = case.run()
        assert "Exit code: 0" not in _tool_output(run)
        assert sock.got == []
    finally:
        sock.close()


@needs_bwrap
def test_a_host_socket_inside_a_carried_tmp_virtualenv_is_closed(tmp_path: Path) -> None:
    venv = Path(tempfile.mkdtemp(prefix="agentci-venv-", dir="/tmp"))
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    sock = HostSocket(venv / "agent.sock")
    try:
        case = make_attack(tmp_path, [shell(sock.connect_command()), {"text": "done"}], YOLO)
        run = case.run(env={"PATH": f"{venv / 'bin'}:{os.environ['PATH']}"})
        assert "Exit code: 0" not in _tool_output(run)
        assert sock.got == []
    finally:
        sock.close()
        shutil.rmtree(venv, ignore_errors=True)


#: The socket system call's number where agentci's sandbox runs.
SYS_SOCKET = {"x86_64": 41, "aarch64": 198}.get(platform.machine())


@needs_bwrap
@pytest.mark.skipif(SYS_SOCKET is None, reason=f"no socket number for {platform.machine()}")
def test_a_family_with_high_bits_set_does_not_slip_past_the_filter(
    tmp_path: Path, host_socket: HostSocket
) -> None:
    """The kernel reads the family as a 32-bit int: 0x1_0000_0001 is AF_UNIX to it."""
    smuggle = (
        "import ctypes, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.restype = ctypes.c_long\n"
        "libc.syscall.argtypes = [ctypes.c_long] * 4\n"
        f"fd = libc.syscall({SYS_SOCKET}, 0x100000001, socket.SOCK_STREAM, 0)\n"
        "assert fd >= 0, 'refused'\n"
        "s = socket.socket(fileno=fd)\n"
        f"s.connect({str(host_socket.path)!r})\n"
        "s.sendall(b'leak')\n"
    )
    script = [tool("write_file", file_path="smuggle.py", content=smuggle)]
    script += [shell(f"{PY} smuggle.py"), {"text": "done"}]
    case = make_attack(tmp_path, script, YOLO)
    run = case.run()
    responses = [str(e.model_dump()) for e in run.events if e.type == "tool_call_response"]
    assert "AssertionError: refused" in responses[-1], responses[-1]
    assert host_socket.got == []


@needs_bwrap
def test_a_datagram_socketpair_cannot_be_pointed_at_a_host_socket(
    tmp_path: Path, host_folder: Path
) -> None:
    path = host_folder / "journal.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(0.5)
    send = (
        f'{PY} -c "import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); '
        f"a.sendto(b'leak', '{path}')\""
    )
    try:
        case = make_attack(tmp_path, [shell(send), {"text": "done"}], YOLO)
        run = case.run()
        assert "Exit code: 0" not in _tool_output(run)
        with pytest.raises(TimeoutError):
            server.recv(100)
    finally:
        server.close()


@needs_bwrap
def test_network_on_keeps_host_unix_sockets_closed(tmp_path: Path, host_socket: HostSocket) -> None:
    recipe = {"policy": {"mode": "yolo", "network": True}}
    case = make_attack(tmp_path, [shell(host_socket.connect_command()), {"text": "done"}], recipe)
    run = case.run()
    assert "Exit code: 0" not in _tool_output(run)
    assert host_socket.got == []


@needs_bwrap
def test_host_sockets_open_when_the_recipe_says_so(tmp_path: Path, host_socket: HostSocket) -> None:
    recipe = {"policy": {"mode": "yolo", "host_sockets": True}}
    command = host_socket.connect_command("hello")
    case = make_attack(tmp_path, [shell(command), {"text": "done"}], recipe)
    case.run()
    assert host_socket.got == [b"hello"]


def _no_bwrap_path(tmp_path: Path) -> str:
    """A PATH with git, bash and the usual tools but without bwrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("git", "bash", "sh", "env", "cat", "tr", "grep", "true", "cp"):
        found = shutil.which(name)
        if found:
            (bin_dir / name).symlink_to(found)
    return str(bin_dir)


@pytest.mark.parametrize("ci", [{"CI": "true"}, {"GITHUB_ACTIONS": "true"}])
def test_under_ci_auto_without_a_sandbox_refuses_to_run(tmp_path: Path, ci: dict) -> None:
    case = make_attack(tmp_path, [shell("cat /proc/$PPID/environ"), {"text": "done"}], YOLO)
    run = case.run(env={**ci, "PATH": _no_bwrap_path(tmp_path)})
    assert run.code == 2, run.stderr[-2000:]
    assert run.result["status"] == "invalid_input"
    assert "sandbox: none" in run.stderr and "bubblewrap" in run.stderr
    assert not [e for e in run.events if e.type == "tool_call_request"]


def test_under_ci_sandbox_none_is_the_recipe_authors_choice(tmp_path: Path) -> None:
    case = make_attack(tmp_path, [shell("true"), {"text": "done"}], {**YOLO, "sandbox": "none"})
    run = case.run(env={"CI": "true", "PATH": _no_bwrap_path(tmp_path)})
    assert run.result["status"] == "no_changes", run.stderr[-2000:]


def test_outside_ci_auto_without_a_sandbox_warns_and_runs(tmp_path: Path) -> None:
    case = make_attack(tmp_path, [{"text": "done"}])
    env = {"CI": "", "GITHUB_ACTIONS": "", "PATH": _no_bwrap_path(tmp_path)}
    run = case.run(env=env)
    assert [e.kind for e in run.events if e.type == "warning"] == ["sandbox_unavailable"]


@pytest.mark.skipif(why_nobody_cannot_run() is not None, reason=str(why_nobody_cannot_run()))
def test_a_same_user_child_cannot_read_agentci_environ_without_a_sandbox() -> None:
    """agentci run as an unprivileged user, sandbox: none: a command of the agent running as
    that same user reads /proc/<agentci>/environ — refused, agentci is not dumpable."""
    steal = (
        "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done"
        " | grep -a -e GEMINI_API_KEY -e GITHUB_TOKEN > leak.txt; true"
    )
    tmp_path = Path(tempfile.mkdtemp(prefix="agentci-nobody-", dir="/var/tmp"))
    try:
        _run_as_nobody(tmp_path, steal)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _run_as_nobody(tmp_path: Path, steal: str) -> None:
    case = make_attack(tmp_path, [shell(steal), {"text": "done"}], {**YOLO, "sandbox": "none"})
    for p in [tmp_path, *tmp_path.rglob("*")]:
        os.chown(p, NOBODY, NOBODY, follow_symlinks=False)
    cmd = [*AS_NOBODY, sys.executable, "-m", "agentci", "run", str(case.recipe)]
    cmd += ["--out", str(case.out)]
    (tmp_path / "tmp").mkdir()
    os.chown(tmp_path / "tmp", NOBODY, NOBODY)
    env = {**os.environ, **CANARIES, "HOME": str(tmp_path), "TMPDIR": str(tmp_path / "tmp")}
    done = subprocess.run(cmd, cwd=case.repo, env=env, capture_output=True, text=True, timeout=120)
    assert (case.repo / "leak.txt").exists(), done.stderr[-2000:]  # the attack ran
    assert all(v not in (case.repo / "leak.txt").read_text() for v in CANARIES.values())


def test_without_libseccomp_the_sandbox_counts_as_not_working() -> None:
    """No socket filter, no sandbox: under CI that is a recipe error, never a silent gap."""
    code = (
        "import sys; sys.modules['pyseccomp'] = None\n"
        "from agentci.errors import InvalidInput\n"
        "from agentci.policy.sandbox import bwrap_problem, check_sandbox_mode\n"
        "print(bwrap_problem())\n"
        "try:\n"
        "    check_sandbox_mode('bwrap')\n"
        "except InvalidInput as err:\n"
        "    print('refused:', err)\n"
    )
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    if "not installed" in lines[0]:
        pytest.skip(lines[0])
    assert lines[0].startswith("the sandbox's socket filter cannot be made: libseccomp cannot")
    assert lines[1].startswith("refused: sandbox: bwrap was asked for, but the sandbox's socket")
