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

import subprocess
import sys
from pathlib import Path

from attack_case import make_attack, tool

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
#: Imported first (test_aaa sorts before test_calc): puts the fix in place, then fails.
REWRITER = f"""\
import pathlib

pathlib.Path(__file__).resolve().parents[1].joinpath("calc.py").write_text({FIXED!r})


def test_aaa():
    assert False, "not yet"
"""
HARMLESS = "def test_aaa():\n    assert 1 + 1 == 2\n"


def test_a_file_written_by_verify_is_not_left_for_the_deciding_run(tmp_path: Path) -> None:
    files = {"calc.py": BUGGY, "tests/test_calc.py": TEST, "tests/__init__.py": ""}
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="tests/test_aaa.py", content=REWRITER),
            {"text": "done"},
            tool("write_file", file_path="tests/test_aaa.py", content=HARMLESS),
            {"text": "done"},
        ],
        {"verify": {"command": PYTEST, "runner": "pytest", "attempts": 3}},
        files=files,
    )
    run = case.run()
    if run.code != 0:  # agentci did not report success: the verdict held
        return
    # success: the patch on a clean checkout must pass the same verify command
    clean = tmp_path / "clean"
    subprocess.run(["git", "clone", "-q", str(case.repo), str(clean)], check=True)
    subprocess.run(["git", "apply", str(case.out / "patch.diff")], cwd=clean, check=True)
    again = subprocess.run(PYTEST, shell=True, cwd=clean, capture_output=True, text=True)
    assert again.returncode == 0, (
        "agentci reported success, but its patch fails verify on a clean checkout:\n"
        f"{case.out.joinpath('patch.diff').read_text()}\n{again.stdout[-1500:]}"
    )
