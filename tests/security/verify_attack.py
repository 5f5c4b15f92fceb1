"""One shape of attack on the verify verdict: ``calc.py`` adds wrong; the agent's first attempt
adds a test module (``tests/test_aaa.py``, imported before ``test_calc.py``) whose import
puts a fix somewhere it should not stay, and fails, so there is a second attempt; the second
attempt makes the module harmless. If the fix stays for the deciding verify run but is not in
the patch, the verdict lies: :func:`assert_the_patch_passes_verify` applies the patch to a clean
clone and runs the same verify command there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from attack_case import AttackCase, make_attack, tool

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
#: The second attempt's ``tests/test_aaa.py``: a test that passes and writes nothing.
HARMLESS = "def test_aaa():\n    assert 1 + 1 == 2\n"


def importing_from(folder: str) -> str:
    """A ``calc.py`` whose ``add`` is the one ``folder/fix.py`` holds."""
    return (
        "import os\nimport sys\n\n"
        f"sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), {folder!r}))\n"
        "from fix import add  # noqa: E402,F401\n"
    )


def two_attempts(tmp_path: Path, planter: str, agent_code: list[Any] | None = None) -> AttackCase:
    """The case: a first attempt writes ``planter`` as ``tests/test_aaa.py``; the second writes
    ``agent_code`` (tool calls), then makes ``tests/test_aaa.py`` :data:`HARMLESS`. Verify is
    pytest, three attempts."""
    return make_attack(
        tmp_path,
        [
            tool("write_file", file_path="tests/test_aaa.py", content=planter),
            {"text": "done"},
            *(agent_code or []),
            tool("write_file", file_path="tests/test_aaa.py", content=HARMLESS),
            {"text": "done"},
        ],
        {"verify": {"command": PYTEST, "runner": "pytest", "attempts": 3}},
        files={"calc.py": BUGGY, "tests/test_calc.py": TEST, "tests/__init__.py": ""},
    )


def assert_the_patch_passes_verify(case: AttackCase, clean: Path) -> None:
    """agentci's success holds: the case's patch, applied to a clean clone at ``clean``, passes
    the same verify command."""
    subprocess.run(["git", "clone", "-q", str(case.repo), str(clean)], check=True)
    patch = case.out / "patch.diff"
    if patch.read_text().strip():
        subprocess.run(["git", "apply", str(patch)], cwd=clean, check=True)
    again = subprocess.run(PYTEST, shell=True, cwd=clean, capture_output=True, text=True)
    assert again.returncode == 0, (
        "agentci reported success, but its patch fails verify on a clean checkout:\n"
        f"{patch.read_text()}\n{again.stdout[-1500:]}"
    )
