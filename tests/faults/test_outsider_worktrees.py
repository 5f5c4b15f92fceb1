"""Outsider faults: ``isolation: worktree`` must unregister only agentci's own worktree.

agentci's cleanup runs ``git worktree prune`` on the user's repository, which drops *every*
worktree whose folder is not where git last saw it — a worktree the user moved by hand (git's
answer for that is ``git worktree repair``) or one on a disk that is not mounted right now. The
pruned worktree loses its HEAD (a commit made only there becomes unreachable) and its index
(staged work). git itself keeps such entries for ``gc.worktreePruneExpire`` (3 months)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agentci.testing.case import write_call, write_case

pytestmark = pytest.mark.timeout(180)


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", str(cwd), *args],
        capture_output=True,
        text=True,
    )


def test_a_worktree_run_keeps_the_users_moved_worktree(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [write_call("new.py", "x = 1\n"), {"text": "done"}],
        {"workspace": {"isolation": "worktree"}},
    )
    side = tmp_path / "side"
    assert git(case.repo, "worktree", "add", "-q", "--detach", str(side)).returncode == 0
    (side / "feature.py").write_text("only committed here\n")
    git(side, "add", "feature.py")
    assert git(side, "commit", "-qm", "side work").returncode == 0
    (side / "staged.py").write_text("staged here\n")
    git(side, "add", "staged.py")
    side_head = git(side, "rev-parse", "HEAD").stdout.strip()
    moved = tmp_path / "side-moved"
    shutil.move(str(side), str(moved))  # moved by hand; `git worktree repair` reconnects it

    run = case.run()
    assert run.code == 0, run.stderr

    repair = git(case.repo, "worktree", "repair", str(moved))
    assert repair.returncode == 0, (
        "agentci pruned the user's worktree: "
        + repair.stderr
        + git(case.repo, "fsck", "--unreachable", "--no-reflogs").stdout
    )
    assert git(moved, "rev-parse", "HEAD").stdout.strip() == side_head
    assert git(moved, "diff", "--cached", "--name-only").stdout.strip() == "staged.py"
