"""The confined sandbox of a read-only command line: no host folder, the rest as before.

A line made only of built-in read-only commands sees the system's folders, the tools on
``PATH``, the workspace and, for a pinned git, its repository (agentci/policy/confined.py).
These tests run real commands under bubblewrap and skip where it is missing. Host folders are
made under ``/var/tmp``: the sandbox's ``/tmp`` is private in any case.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tool_harness import Harness, bwrap_sandbox

from agentci.policy.sandbox import Sandbox
from agentci.testing.repo import commit_repo, git

SECRET = "SECRET-OF-THE-RUNNER"


@pytest.fixture
def host() -> Iterator[Path]:
    """A folder of the host outside the workspace and outside ``/tmp``."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("needs a writable /var/tmp for a host folder outside /tmp")
    folder = Path(tempfile.mkdtemp(prefix="agentci-host-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def boxed(h: Harness, ws: Path) -> Harness:
    h.mode = "auto_edit"
    h.sandbox = bwrap_sandbox(ws)
    return h


def allowed(h: Harness, command: str) -> str:
    res = h.sh(command)
    assert res.error is None, (command, res)
    assert h.last_decision().rule == "read_only_command"
    return res.output


def test_a_link_to_a_host_folder_dangles(boxed: Harness, ws: Path, host: Path) -> None:
    (host / "token.txt").write_text(SECRET + "\n")
    (ws / "vendor").symlink_to(host)
    out = allowed(boxed, "grep -R SECRET .")
    assert SECRET not in out
    assert "vendor: No such file or directory" in out


def test_a_link_inside_the_workspace_is_followed(boxed: Harness, ws: Path) -> None:
    (ws / "lib").mkdir()
    (ws / "lib" / "code.txt").write_text("MARKER inside\n")
    (ws / "alias").symlink_to(ws / "lib")
    assert "./alias/code.txt:MARKER inside" in allowed(boxed, "grep -R MARKER .")


def test_a_rule_allowed_command_still_sees_the_host(boxed: Harness, ws: Path, host: Path) -> None:
    (host / "token.txt").write_text(SECRET + "\n")
    (ws / "vendor").symlink_to(host)
    boxed.rules = [{"tool": "run_shell_command", "command": "grep", "decision": "allow"}]
    res = boxed.sh("grep -R SECRET .")
    assert boxed.last_decision().rule.startswith("rules[0]")
    assert SECRET in res.output  # consent: a rule, like yolo and verify, runs on the whole root


def test_system_files_and_the_tools_are_there(boxed: Harness) -> None:
    out = allowed(boxed, "id -un; date +%Y >/dev/null && echo dated; which git sed awk")
    assert "dated" in out and "/git\n" in out and "/awk\n" in out


def test_pinned_git_reads_a_worktrees_git_dir_outside_the_workspace(
    tmp_path: Path, host: Path
) -> None:
    main = commit_repo(host / "main", {"a.txt": "from main\n"})
    ws = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "task", str(ws))
    (ws / "a.txt").write_text("changed\n")
    boxed = Harness(ws=Path(os.path.realpath(ws)), mode="auto_edit")
    boxed.sandbox = bwrap_sandbox(boxed.ws)
    out = allowed(boxed, "git log --oneline -1 && git status --short")
    assert "initial" in out and " M a.txt" in out


def test_pinned_git_reads_the_object_store_it_borrows(tmp_path: Path, host: Path) -> None:
    main = commit_repo(host / "main", {"a.txt": "from main\n"})
    ws = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--shared", str(main), str(ws))
    assert (ws / ".git" / "objects" / "info" / "alternates").is_file()
    boxed = Harness(ws=Path(os.path.realpath(ws)), mode="auto_edit")
    boxed.sandbox = bwrap_sandbox(boxed.ws)
    assert "from main" in allowed(boxed, "git show HEAD:a.txt")


def test_the_confined_root_is_not_the_hosts_and_is_made_once() -> None:
    box = Sandbox(Path("/w"), bwrap="bwrap")
    env = {"PATH": "/usr/bin:/bin"}
    view = box.confined(env)
    args = view.wrap(["true"], Path("/w"), seccomp_fd=5)
    assert box.confined(dict(env)) is view
    assert ["--ro-bind", "/", "/"] not in [args[i : i + 3] for i in range(len(args))]
    assert args[args.index("--unshare-net") - 2 :][:2] == ["--remount-ro", "/"]
