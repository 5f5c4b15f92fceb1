"""A task's later verify runs start with the bytecode its baseline run compiled for the
workspace's modules whose source has not changed (agentci/policy/pyc_carry.py), as a
developer's second pytest run reads the ``__pycache__`` its first wrote; a module the agent
changed is compiled again.

``conftest.py`` (imported before the test modules) prints, for each test module, whether
pytest's rewritten bytecode of it is already under ``sys.pycache_prefix`` when the run starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_helpers import run_task

from agentci.outcome import Status
from agentci.policy.sandbox import bwrap_problem
from agentci.providers.scripted import Reply, call
from agentci.testing.repo import commit_repo

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")

CONFTEST = """\
import sys
from pathlib import Path

here = Path(__file__).parent
for name in ("test_calc", "test_other"):
    folder = Path(sys.pycache_prefix or "/nowhere") / Path(*(here / "tests").parts[1:])
    found = list(folder.glob(name + ".*-pytest-*.pyc")) if folder.is_dir() else []
    print(f"BYTECODE {name}: {'there' if found else 'none'}")
"""
FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "conftest.py": CONFTEST,
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_other.py": "def test_other():\n    assert 1 + 1 == 2\n",
}


def test_the_attempt_starts_with_the_baseline_bytecode_of_unchanged_modules(
    outside_tmp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_PYC_CACHE", str(tmp_path / "store"))
    repo = outside_tmp / "repo"
    commit_repo(repo, FILES)
    replies = [
        Reply(calls=[call("replace", file_path="calc.py", old_string="a - b", new_string="a + b")]),
        Reply(
            calls=[
                call(
                    "write_file",
                    file_path="tests/test_other.py",
                    content="def test_other():\n    assert 2 + 2 == 4\n",
                )
            ]
        ),  # fmt: skip
        Reply(text="Fixed add."),
    ]
    recipe = {
        "prompt": "Fix add.",
        "verify": {"command": "python -m pytest -q -s", "runner": "pytest", "attempts": 1},
    }
    done = run_task(repo, recipe, replies, tmp_path / "out")
    assert done.report.status is Status.success
    baseline, attempt = done.verify_events
    assert "BYTECODE test_calc: none" in baseline.output_tail
    assert "BYTECODE test_other: none" in baseline.output_tail
    assert "BYTECODE test_calc: there" in attempt.output_tail
    assert "BYTECODE test_other: none" in attempt.output_tail  # the agent changed it


def test_a_module_changed_back_to_its_time_stamps_is_compiled_again(
    outside_tmp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_PYC_CACHE", str(tmp_path / "store"))
    repo = outside_tmp / "repo"
    commit_repo(repo, FILES)
    same_size = "def test_other():\n    assert 1 + 2 == 3\n"  # as long as the original
    assert len(same_size) == len(FILES["tests/test_other.py"])
    touch_back = (
        "import os\n"
        "p = 'tests/test_other.py'\n"
        "st = os.stat(p)\n"
        f"open(p, 'w').write({same_size!r})\n"
        "os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
    )
    replies = [
        Reply(calls=[call("replace", file_path="calc.py", old_string="a - b", new_string="a + b")]),
        Reply(calls=[call("write_file", file_path="edit.py", content=touch_back)]),
        Reply(calls=[call("run_shell_command", command="python edit.py")]),
        Reply(text="Fixed add."),
    ]
    recipe = {
        "prompt": "Fix add.",
        "verify": {"command": "python -m pytest -q -s", "runner": "pytest", "attempts": 1},
        "policy": {
            "rules": [
                {"tool": "run_shell_command", "command": "python edit.py", "decision": "allow"}
            ]
        },  # fmt: skip
    }
    done = run_task(repo, recipe, replies, tmp_path / "out")
    attempt = done.verify_events[-1]
    assert "BYTECODE test_calc: there" in attempt.output_tail
    assert "BYTECODE test_other: none" in attempt.output_tail
