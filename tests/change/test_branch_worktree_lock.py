"""``outputs.branch`` asks git which branches the repository's worktrees have checked out. That
list is read under the repository's worktree lock, the one agentci holds while it adds or
unregisters a worktree: unlocked, git read every worktree's entry while a batch's other task
(or another agentci run) deleted its own, and failed ("failed to read
.git/worktrees/NAME/commondir"), so the task's branch was not made."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentci.change.branch import Repo
from agentci.testing.repo import commit_repo


def test_the_worktree_list_is_read_under_the_repositorys_worktree_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    commit_repo(repo, {"a.txt": "a\n"})
    log, stub = tmp_path / "lock.log", tmp_path / "bin"
    stub.mkdir()
    (stub / "git").write_text(  # the real git, noting whether it could take the lock itself
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = worktree ] && break; done\n'
        f'if [ "$a" = worktree ]; then flock -n -x {repo / ".git"} true && echo free >> {log} '
        f"|| echo held >> {log}; fi\n"
        f'exec {shutil.which("git")} "$@"\n'
    )
    (stub / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub}:{os.environ['PATH']}")
    found = Repo.find(repo)
    assert found is not None
    found.not_checked_out("agentci/fix")
    assert log.read_text() == "held\n"
