"""The in-place workspace lock is per repository and does not depend on ``TMPDIR``: a run on
a subfolder, on a repository nested in another, or started with another ``TMPDIR`` is refused
while a run edits the tree; runs on repositories side by side are not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.errors import InvalidInput
from agentci.run_locks import lock_workspace
from agentci.testing.repo import commit_repo

HOLD = (
    "import sys; from pathlib import Path\n"
    "from agentci.run_locks import lock_workspace\n"
    "lock_workspace(Path(sys.argv[1]))\n"
    "print('held', flush=True); sys.stdin.read()\n"
)


def hold(path: Path, tmpdir: Path | None = None) -> subprocess.Popen[str]:
    """Another process holding the workspace lock of ``path`` until its stdin closes."""
    env = {**os.environ, **({"TMPDIR": str(tmpdir)} if tmpdir else {})}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def refused(path: Path, other: subprocess.Popen[str]) -> str:
    """The message refusing ``path`` while ``other`` holds its lock (then ``other`` ends)."""
    try:
        with pytest.raises(InvalidInput, match=f"another agentci run \\(pid {other.pid}\\)") as err:
            lock_workspace(path)
    finally:
        other.communicate("")
    return str(err.value)


def test_a_subfolder_of_a_repository_being_edited_is_refused(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "repo", {"a.py": "A = 0\n", "sub/b.py": "B = 0\n"})
    message = refused(repo / "sub", hold(repo))
    assert message.startswith(f"workspace {repo / 'sub'} (in the repository {repo}) is in use")


def test_the_root_of_a_repository_whose_subfolder_is_being_edited_is_refused(tmp_path: Path):
    repo = commit_repo(tmp_path / "repo", {"a.py": "A = 0\n", "sub/b.py": "B = 0\n"})
    assert refused(repo, hold(repo / "sub")).startswith(f"workspace {repo} is in use")


def test_a_run_with_another_tmpdir_is_refused(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "repo", {"a.py": "A = 0\n"})
    (tmp_path / "tmp1").mkdir()
    refused(repo, hold(repo, tmpdir=tmp_path / "tmp1"))


def test_a_repository_nested_in_one_being_edited_is_refused(tmp_path: Path) -> None:
    outer = commit_repo(tmp_path / "outer", {"a.py": "A = 0\n"})
    inner = commit_repo(outer / "inner", {"b.py": "B = 0\n"})
    message = refused(inner, hold(outer))
    assert message.startswith(f"workspace {inner} is inside {outer}, which is in use")


def test_the_outer_repository_of_a_nested_one_being_edited_is_refused(tmp_path: Path) -> None:
    outer = commit_repo(tmp_path / "outer", {"a.py": "A = 0\n"})
    inner = commit_repo(outer / "inner", {"b.py": "B = 0\n"})
    refused(outer, hold(inner))


def test_repositories_side_by_side_are_edited_at_once(tmp_path: Path) -> None:
    one = commit_repo(tmp_path / "one", {"a.py": "A = 0\n"})
    two = commit_repo(tmp_path / "two", {"b.py": "B = 0\n"})
    first = hold(one)
    try:
        hold(two).communicate("")  # held, then given up
    finally:
        first.communicate("")
