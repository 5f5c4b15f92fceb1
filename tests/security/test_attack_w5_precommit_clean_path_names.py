"""w5: the pre-commit hook's clean path (agentci/precommit/quick.py) says "clean" (exit 0) for
staged files the whole run refuses.

The clean path promises to decide only what the run would decide the same way: anything it
does not reproduce exactly is left to the run. It builds ruff's command line itself
(``shlex.join``) and checks only for ``{{`` / ``{%`` in it; the run renders the recipe's
templates and refuses text no command can carry (a name that is not UTF-8 is a lone surrogate
in Python): ``template error``, exit 2, the commit is blocked. A repository that stages a file
whose name is not UTF-8 gets a clean hook (exit 0, outputs of a successful run written) where
the run it stands in for fails. (Fails while the hole is open.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from attack_case import CANARIES

from agentci.testing.cli import agentci
from agentci.testing.repo import commit_repo

NAME = os.fsdecode(b"bad\xff.py")


def test_the_clean_path_does_not_pass_names_the_run_refuses(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    (repo / NAME).write_text("x = 2\n")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # ruff
    env = {**CANARIES, "CI": "1", "PATH": path}
    quick = agentci("pre-commit", "--recipe", "fix-lint", "a.py", NAME, cwd=repo, env=env)
    for p in (repo / ".agentci").rglob("*"):
        if p.is_file():
            p.unlink()
    full = agentci("pre-commit", "--recipe", "fix-lint", "a.py", NAME, cwd=repo,
                   env={**env, "AGENTCI_PRECOMMIT_QUICK": "0"})  # fmt: skip
    assert (quick.returncode == 0) == (full.returncode == 0), (
        f"the clean path exited {quick.returncode}, the run it stands in for {full.returncode}:\n"
        f"{quick.stdout}{quick.stderr}\n---\n{full.stdout}{full.stderr}"
    )
