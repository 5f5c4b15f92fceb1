"""w5: code a verify run writes into a folder agentci itself ignores as a tool cache
(``.pytest_cache/``, agentci/change/baseline.py CACHE_PATTERNS) stays on disk, out of the
patch, for the deciding verify run (fails while the hole is open).

restore_verify_writes (agentci/change/overlay.py) puts back only what the patch is made of;
"ignored files verify wrote (caches, reports) stay as they are", and the weakened_tests guard
sets aside only ignored files the *agent* wrote. The agent's first attempt adds a test module
whose import writes the fix to ``.pytest_cache/fix.py`` (and fails); the agent's code imports
the fix from there; the second attempt makes the test module harmless. The deciding verify
passes; the patch lacks the fix: applied to a clean checkout, verify fails. The verdict lies.
"""

from __future__ import annotations

from pathlib import Path

from attack_case import tool
from verify_attack import assert_the_patch_passes_verify, importing_from, two_attempts

#: Imported first (test_aaa sorts before test_calc): the fix in an ignored cache folder.
PLANTER = """\
import pathlib

h = pathlib.Path(__file__).resolve().parents[1] / ".pytest_cache"
h.mkdir(exist_ok=True)
(h / "fix.py").write_text("def add(a, b):\\n    return a + b\\n")


def test_aaa():
    assert False, "not yet"
"""


def test_an_ignored_cache_verify_writes_does_not_keep_code_for_the_deciding_run(
    tmp_path: Path,
) -> None:
    calc = tool("write_file", file_path="calc.py", content=importing_from(".pytest_cache"))
    case = two_attempts(tmp_path, PLANTER, [calc])
    run = case.run()
    if run.code != 0:  # agentci did not report success: the verdict held
        return
    assert_the_patch_passes_verify(case, tmp_path / "clean")
