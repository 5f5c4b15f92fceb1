"""Which files can hold a checkout's credentials: the repository's config files, those of its
linked worktrees and submodules, and every file any of them includes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tool_harness import init_repo

from agentci.policy.gitconfig import config_files


def test_config_files_cover_worktrees_submodules_and_includes(tmp_path: Path) -> None:
    ws = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git = ws / ".git"
    for d in ("modules/lib", "modules/lib/modules/deep", "worktrees/wt"):
        (git / d).mkdir(parents=True)
        (git / d / "config").write_text("[core]\n")
    (git / "worktrees/wt/config.worktree").write_text("[core]\n")
    (git / "modules/lib/objects").mkdir()
    (git / "modules/lib/objects/config").write_text("not a repository's\n")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    (temp / "git-credentials-1.config").write_text('[include]\n\tpath = "next.config"\n')
    (temp / "next.config").write_text(f"[include]\n\tpath = {git / 'config'}\n")  # a cycle
    key = f"includeIf.gitdir:{git}.path"
    subprocess.run(["git", "config", "--local", key, str(temp / "git-credentials-1.config")],
                   cwd=ws, check=True)  # fmt: skip
    (git / "modules/lib/config").write_text("[include] path = ../../../sub.config ; note\n")
    (ws / "sub.config").write_text("")
    names = sorted(str(p.relative_to(tmp_path)) for p in config_files(ws))
    assert names == [
        "repo/.git/config",
        "repo/.git/modules/lib/config",
        "repo/.git/modules/lib/modules/deep/config",
        "repo/.git/worktrees/wt/config",
        "repo/.git/worktrees/wt/config.worktree",
        "repo/sub.config",
        "runner-temp/git-credentials-1.config",
        "runner-temp/next.config",
    ]
