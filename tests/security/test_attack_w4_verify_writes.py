"""w4: what a verify run writes is left out of the patch but stays in the workspace, where the
next verify run — the one that decides — uses it (each test fails while the hole is open).

agentci subtracts verify's writes from the change (agentci/change/overlay.py: a path verify
changed goes back to its pre-verify content *in later snapshots*), so that caches and build
products of the test command are never the agent's change. The files themselves stay as verify
left them. So the agent's first attempt adds a test module whose import rewrites the code under
test (and fails, so there is a second attempt); the second attempt makes that module harmless.
The deciding verify run passes on the rewritten code; the patch holds the harmless test only:
applied to a clean checkout, verify fails. The verdict lies.
"""

from __future__ import annotations

from pathlib import Path

from verify_attack import FIXED, assert_the_patch_passes_verify, two_attempts

#: Imported first (test_aaa sorts before test_calc): puts the fix in place, then fails.
REWRITER = f"""\
import pathlib

pathlib.Path(__file__).resolve().parents[1].joinpath("calc.py").write_text({FIXED!r})


def test_aaa():
    assert False, "not yet"
"""


def test_a_file_written_by_verify_is_not_left_for_the_deciding_run(tmp_path: Path) -> None:
    case = two_attempts(tmp_path, REWRITER)
    run = case.run()
    if run.code != 0:  # agentci did not report success: the verdict held
        return
    assert_the_patch_passes_verify(case, tmp_path / "clean")
