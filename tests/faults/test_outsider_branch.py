"""Outsider faults on ``outputs.branch``: the proposal is committed "without touching the
checkout — no change of branch, index or working tree" (docs/batch.md). A proposal branch the
user has checked out (to review or try it) is their current branch: moving it moves their HEAD."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from agentci.testing.case import write_call, write_case

pytestmark = pytest.mark.timeout(180)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_rerun_does_not_move_the_proposal_branch_the_user_has_checked_out(tmp_path: Path) -> None:
    recipe = {"policy": {"mode": "yolo"}, "outputs": {"branch": {"name": "agentci/fix"}}}
    case = write_case(tmp_path, [write_call("new.py", "x = 1\n"), {"text": "done"}], recipe)
    first = case.run()
    assert first.code == 0 and first.result["tasks"][0]["extra"]["branch"], first.stderr

    # The user checks the proposal out to try it, and stages work of their own on it.
    (case.repo / "new.py").unlink()
    git(case.repo, "checkout", "-q", "agentci/fix")
    (case.repo / "mine.txt").write_text("my work\n")
    git(case.repo, "add", "mine.txt")
    head = git(case.repo, "rev-parse", "HEAD")

    # A second run in that checkout makes another change of the same task.
    (tmp_path / "script.yaml").write_text(
        yaml.safe_dump([write_call("new.py", "x = 2\n"), {"text": "done again"}])
    )
    second = case.run()
    assert second.code == 0, second.stderr

    assert git(case.repo, "symbolic-ref", "HEAD") == "refs/heads/agentci/fix"
    assert git(case.repo, "rev-parse", "HEAD") == head, (
        "agentci moved the branch checked out in the user's worktree: their HEAD changed, and "
        "their index now stages a revert of the agent's change:\n"
        + git(case.repo, "diff", "--cached", "--stat")
    )
    # only the user's own staged work is staged
    assert git(case.repo, "diff", "--cached", "--name-only") == "mine.txt"
    # and the run says why the new change is not on the branch
    failed = second.result["tasks"][0]["extra"]["branch_failed"]
    assert "agentci/fix is checked out in a worktree" in failed
