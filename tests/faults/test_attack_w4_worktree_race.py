"""Two agentci runs at once with ``isolation: worktree`` on the same repository (what worktree
isolation is for): each makes its worktree and removes it, in its own process. Neither may fail
because the other removed its worktree meanwhile; one ends invalid_input (exit 2, "git worktree
in REPO failed: fatal: failed to read .git/worktrees/NAME/commondir: Success"): git worktree
add reads every worktree entry while the other run deletes its entry folder. The lock of
9eaec71 covers the tasks of one process only; the same failure happens with the code before
1841921 (git worktree remove deletes that folder the same way). With 8 processes the failure
came in the first 4 rounds in every run measured before the fix (11 of 11), so 10 rounds keep
the test cheap: about 3 CPU-seconds once the runs wait for each other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentci.testing.repo import commit_repo

ROUNDS = 10
PROCESSES = 8

#: One run's worktree, made and removed ROUNDS times, stopping at the first failure (or when
#: another process failed: the file ``stop``).
LOOP = """
import sys
from pathlib import Path
from agentci.errors import InvalidInput
from agentci.recipe.schema import Workspace
from agentci.workspace import prepare_workspace
base, stop = Path(sys.argv[1]), Path(sys.argv[2])
for _ in range(int(sys.argv[3])):
    if stop.exists():
        break
    try:
        prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=base).cleanup()
    except InvalidInput as err:
        stop.write_text(str(err))
        print(err)
        break
"""


def test_attack_w4_concurrent_worktree_runs_on_one_repository(tmp_path: Path):
    commit_repo(tmp_path / "repo", {f"f{i}.txt": f"{i}\n" for i in range(5)})
    stop = tmp_path / "stop"
    procs = [
        subprocess.Popen([sys.executable, "-c", LOOP, str(tmp_path), str(stop), str(ROUNDS)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(PROCESSES)
    ]  # fmt: skip
    failures = [out for p in procs if (out := p.communicate(timeout=600)[0].strip())]
    assert failures == []
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=tmp_path / "repo",
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert listed.count("worktree ") == 1  # the repository's own: none left registered
