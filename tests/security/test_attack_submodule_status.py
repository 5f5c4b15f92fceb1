"""agentci's ``git status`` on a checkout never looks inside a submodule's work tree: git
would run ``git status`` in the submodule, with the submodule's own config and attributes,
and a clean filter there (the agent can replace a submodule's ``.git`` in the sandbox, and
only the top-level repository's drivers are neutralised) would run on the host.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentci.change.patch import worktree_base
from agentci.testing.repo import commit_repo, git


def test_worktree_base_runs_no_clean_filter_of_a_submodule(tmp_path: Path) -> None:
    src = commit_repo(tmp_path / "src", {"README": "a library\n"})
    top = commit_repo(tmp_path / "top", {"f.txt": "x\n"})
    git(top, "submodule", "add", "-q", str(src), "lib")
    git(top, "commit", "-qm", "a submodule")
    loot = tmp_path / "loot"
    payload = tmp_path / "payload.sh"
    payload.write_text(f"#!/bin/sh\necho ran > {loot}\ncat\n")
    payload.chmod(0o755)
    lib = top / "lib"
    git(lib, "config", "filter.x.clean", str(payload))
    (lib / ".gitattributes").write_text("* filter=x\n")
    loot.unlink(missing_ok=True)  # git config ran nothing; be sure
    os.utime(lib / "README", (1, 1))  # stat-dirty: git status hashes it (through the filter)

    base, dirty = worktree_base(top)

    assert not loot.exists(), "the submodule's clean filter ran on the host"
    assert (base, dirty) == (f"HEAD {git(top, 'rev-parse', 'HEAD')[:12]}", "")
