"""A snapshot never waits for ever on what the workspace holds.

git opens ``.gitignore`` / ``.gitattributes`` with a plain ``open()``: a named pipe of that name
blocks every ``git add`` until someone writes to it. A snapshot refuses such a workspace
(:class:`~agentci.errors.GitWouldBlock`) as soon as a git call of it runs long (the workspace is
then searched for such files), and every private git call has a deadline after which
git and whatever it started are killed (:class:`~agentci.change.privgit.GitTimedOut`).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from agentci.change.patch import capture_baseline, changed_files
from agentci.change.privgit import GitTimedOut
from agentci.errors import GitWouldBlock
from agentci.testing.processes import running
from agentci.testing.repo import commit_repo

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("pipe", ["sub/.gitignore", ".gitattributes", "sub/.gitattributes"])
def test_a_named_pipe_git_would_read_stops_the_snapshot(tmp_path: Path, pipe: str) -> None:
    """Edits in both folders: git opens each folder's ``.gitattributes`` for a file it hashes
    there (a pipe next to no changed file is never opened, and stops nothing)."""
    ws = commit_repo(tmp_path / "r", {"app.py": "x = 1\n", "sub/keep.txt": "k\n"})
    base = capture_baseline(ws)
    os.mkfifo(ws / pipe)
    (ws / "app.py").write_text("x = 2\n")
    (ws / "sub" / "keep.txt").write_text("k2\n")
    with pytest.raises(GitWouldBlock) as err:
        changed_files(base)
    assert f": {pipe}; git would wait on them for ever" in err.value.reason


@pytest.mark.parametrize("folder", [".gitattributes", "sub/.gitignore", ".gitmodules"])
def test_a_named_pipe_inside_a_folder_named_as_a_file_git_reads(
    tmp_path: Path, folder: str
) -> None:
    """git walks into a folder called ``.gitattributes`` like any other and opens the
    ``.gitignore`` in it."""
    ws = commit_repo(tmp_path / "r", {"app.py": "x = 1\n", "sub/keep.txt": "k\n"})
    base = capture_baseline(ws)
    (ws / folder).mkdir()
    os.mkfifo(ws / folder / ".gitignore")
    base.deadline = time.monotonic() + 5  # without the check, git meets the pipe
    with pytest.raises(GitWouldBlock) as err:
        changed_files(base)
    assert f": {folder}/.gitignore; git would wait on them for ever" in err.value.reason


def test_a_named_pipe_in_the_users_repository_stops_the_baseline(tmp_path: Path) -> None:
    ws = commit_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    os.mkfifo(ws / ".gitignore")
    with pytest.raises(GitWouldBlock, match=r": \.gitignore; git would wait"):
        capture_baseline(ws)


def test_a_blocked_git_call_is_killed_with_its_children_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = commit_repo(tmp_path / "r", {"app.py": "x = 1\n", "sub/keep.txt": "k\n"})
    base = capture_baseline(ws)
    os.mkfifo(ws / "sub" / ".gitignore")  # past the check below: git itself meets it
    stub = tmp_path / "bin"
    stub.mkdir()
    pid_file = tmp_path / "child.pid"
    (stub / "git").write_text(
        f'#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nexec /usr/bin/git "$@"\n'
    )
    (stub / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub}:{os.environ['PATH']}")
    base.deadline = time.monotonic() + 2
    bare = replace(base.git, on_stall=None)  # the deadline alone, without the look at the pipe
    with pytest.raises(GitTimedOut, match=r"^git add -A did not finish in \d+ s and was stopped"):
        bare.run(["add", "-A", "--", *base.pathspecs])
    assert not running(int(pid_file.read_text()))
