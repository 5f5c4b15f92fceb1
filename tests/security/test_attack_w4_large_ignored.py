"""w4: an ignored file too large for the baseline's copy is not set aside while verify runs
(the test fails while the hole is open).

The verdict is meant to be about the patch: an ignored file the agent changed has its
baseline content while verify runs (agentci/verify/set_aside.py). The baseline keeps a copy of
each ignored file only up to 4 MiB (and 64 MiB in all: agentci/verify/kept.py), and one that
was not kept "stays" in the agent's version, named in ``not_set_aside`` — the task is not
failed for it. A project whose setup generates a large ignored module the code imports (a
table, a parser, a vendored bundle) gives the agent a place to change the code under test where
no patch shows it: the deciding verify passes, the patch (a harmless comment) does not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from attack_case import make_attack, tool

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
#: The project's generator (run by setup): a 5 MB module, ignored by .gitignore.
GEN = (
    "import pathlib\n"
    "pathlib.Path('generated').mkdir(exist_ok=True)\n"
    "pathlib.Path('generated/table.py').write_text('SIGN = -1\\n' + '#' * (5 << 20) + '\\n')\n"
)
CALC = "from generated.table import SIGN\n\n\ndef add(a, b):\n    return a + SIGN * b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_a_large_ignored_file_the_agent_changed_does_not_decide_the_verdict(tmp_path: Path) -> None:
    files = {
        ".gitignore": "generated/\n",
        "gen.py": GEN,
        "calc.py": CALC,
        "tests/__init__.py": "",
        "tests/test_calc.py": TEST,
    }
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="generated/table.py", content="SIGN = 1\n"),
            tool("write_file", file_path="calc.py", content="# add two numbers\n" + CALC),
            {"text": "done"},
        ],
        {
            "setup": [f"{sys.executable} gen.py"],
            "verify": {"command": PYTEST, "runner": "pytest", "attempts": 1},
        },
        files=files,
    )
    run = case.run()
    if run.code != 0:  # agentci did not report success: the verdict held
        return
    clean = tmp_path / "clean"
    subprocess.run(["git", "clone", "-q", str(case.repo), str(clean)], check=True)
    subprocess.run([sys.executable, "gen.py"], cwd=clean, check=True)  # the recipe's setup
    subprocess.run(["git", "apply", str(case.out / "patch.diff")], cwd=clean, check=True)
    again = subprocess.run(PYTEST, shell=True, cwd=clean, capture_output=True, text=True)
    assert again.returncode == 0, (
        "agentci reported success, but its patch fails verify on a clean checkout:\n"
        f"{case.out.joinpath('patch.diff').read_text()}\n{again.stdout[-1500:]}"
    )
