"""w5: files a verify run writes inside a git repository it makes are neither put back nor in
the patch, and the deciding verify run uses them (fails while the hole is open).

agentci puts back what a verify run wrote (agentci/change/overlay.py: restore_verify_writes)
by diffing the snapshots before and after the run. Since snapshots walk with one
``git status`` (agentci/change/walk.py), a folder holding a ``.git`` is listed as one untracked
"nested repository" (``? helpers/``) and never enters the snapshot: what verify wrote there is
in neither snapshot, so it is not put back. The agent's first attempt adds a test module whose
import makes ``helpers/`` a repository holding the fix (and fails, so there is a second
attempt); the agent's code imports the fix from there; the second attempt makes the test module
harmless. The deciding verify passes on the workspace; the patch lacks ``helpers/``: applied to
a clean checkout, verify fails. The verdict lies.
"""

from __future__ import annotations

from pathlib import Path

from attack_case import tool
from verify_attack import assert_the_patch_passes_verify, importing_from, two_attempts

#: Imported first (test_aaa sorts before test_calc): a repository in helpers/ with the fix.
PLANTER = """\
import pathlib

h = pathlib.Path(__file__).resolve().parents[1] / "helpers"
for d in ("objects", "refs/heads"):
    (h / ".git" / d).mkdir(parents=True, exist_ok=True)
(h / ".git" / "HEAD").write_text("ref: refs/heads/main\\n")
(h / "fix.py").write_text("def add(a, b):\\n    return a + b\\n")


def test_aaa():
    assert False, "not yet"
"""


def test_a_repository_verify_makes_does_not_keep_its_files_for_the_deciding_run(
    tmp_path: Path,
) -> None:
    calc = tool("write_file", file_path="calc.py", content=importing_from("helpers"))
    case = two_attempts(tmp_path, PLANTER, [calc])
    run = case.run()
    if run.code != 0:  # agentci did not report success: the verdict held
        return
    assert_the_patch_passes_verify(case, tmp_path / "clean")
