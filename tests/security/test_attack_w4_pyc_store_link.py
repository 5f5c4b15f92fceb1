"""The bytecode store links the .pyc beside a source outside the workspace. In a monorepo,
``shared/`` is outside the workspace of the ``backend`` recipe, so a run of it stores a link to
``shared/__pycache__/util.cpython-*.pyc``; a later run of a repository-wide recipe has
``shared/`` in its workspace, and the agent rewrites that .pyc (an unchecked-hash one, which
Python never compares with its source). Verify then imports the agent's bytecode through the
store, passes, and the run ends success with a patch that fixes nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from agentci.testing.case import write_case

pytestmark = pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")

TEST = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.realpath(os.path.join(os.path.dirname(__file__), '..', 'shared')))\n"
    "import util\n\n\ndef test_add():\n    assert util.add(1, 2) == 3\n"
)
FILES = {
    ".gitignore": "__pycache__/\n",
    "shared/util.py": "def add(a, b):\n    return a - b\n",
    "backend/test_b.py": TEST,
}
PLANT = (
    f'{sys.executable} -c "import py_compile, sys; '
    "open('/tmp/u.py', 'w').write('def add(a, b):\\n    return a + b\\n'); "
    "py_compile.compile('/tmp/u.py', cfile='shared/__pycache__/util.' + sys.implementation.cache_tag + '.pyc', "
    'invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)"'
)
ALLOW_SHELL = {"rules": [{"tool": "run_shell_command", "decision": "allow"}]}


@pytest.fixture
def home_like() -> Path:
    """A folder outside /tmp, as a runner's checkout is (/tmp is the sandbox's own)."""
    root = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="attack-w4-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_attack_w4_a_stored_link_into_a_later_workspace_runs_the_agents_bytecode(
    tmp_path: Path, home_like: Path
):
    pytest_cmd = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    env = {"AGENTCI_PYC_CACHE": str(tmp_path / "store"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    first = write_case(
        home_like / "one",
        [{"text": "nothing to do"}],
        {"workspace": {"path": "backend"}, "verify": {"command": f"{pytest_cmd} test_b.py"}},
        FILES,
    )
    repo = first.repo
    subprocess.run(
        [sys.executable, "-c", "import py_compile; py_compile.compile('shared/util.py')"],
        cwd=repo,
        check=True,
    )
    first.run("-q", env=env)
    links = [p for p in (tmp_path / "store").rglob("util.*.pyc") if "shared" in str(p)]
    assert links, "the first run stored no link to shared/__pycache__"

    script = [
        {"calls": [{"name": "run_shell_command", "args": {"command": PLANT}}]},
        {"calls": [{"name": "write_file", "args": {"file_path": "NOTES.md", "content": "x\n"}}]},
        {"text": "fixed"},
    ]
    second = write_case(
        tmp_path / "two",
        script,
        {
            "workspace": {"path": str(repo)},
            "policy": ALLOW_SHELL,
            "verify": {"command": f"{pytest_cmd} backend/test_b.py"},
        },
        {"README.md": "x\n"},
    )
    run = second.run("-q", env=env)
    result = yaml.safe_load((second.out / "result.json").read_text())
    assert (repo / "shared/util.py").read_text().endswith("a - b\n")  # nothing fixed
    assert "util.py" not in (second.out / "patch.diff").read_text()
    assert (run.code, result["status"]) != (0, "success"), os.linesep.join(
        [str(result["status"]), run.stderr[-500:]]
    )
