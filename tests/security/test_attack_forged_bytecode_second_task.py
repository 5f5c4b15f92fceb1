"""A later task's baseline verify runs an earlier agent's code: it must not choose the
bytecode that task's later verify runs execute (agentci/policy/pyc_carry.py).

Two tasks on one tree. Task one's agent fixes ``add`` and appends to calc.py code that, when
a verify run exits, writes into the run's bytecode prefix pytest's rewritten bytecode of
test_two.py with a test that just passes (the header of the real test_two.py's bytes). Task
two's baseline verify imports calc and runs it; task two's agent only takes the payload out and
leaves ``mul`` broken. Task two must fail: test_two.py, as on disk, fails. Carrying that
baseline's bytecode to the attempt made it pass (found by an outsider pass).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.repo import commit_repo

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")

PAYLOAD = r"""


def _forge_at_exit():
    import atexit, importlib.util, marshal, os, sys
    def forge():
        pytest = sys.modules.get("pytest")
        if not sys.pycache_prefix or pytest is None:
            return
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_two.py")
        fake = "def test_mul():\n    pass\n"
        raw = open(src, "rb").read()
        data = (importlib.util.MAGIC_NUMBER + b"\x03\x00\x00\x00"
                + importlib.util.source_hash(raw)[:8] + marshal.dumps(compile(fake, src, "exec")))
        name = "test_two.%s-pytest-%s.pyc" % (sys.implementation.cache_tag, pytest.__version__)
        folder = os.path.join(sys.pycache_prefix, os.path.dirname(src).lstrip("/"))
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, name), "wb").write(data)
    atexit.register(forge)


_forge_at_exit()
"""
FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n",
    "test_one.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "test_two.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
}
RECIPE = """\
version: 1
name: two-tasks
model: {name: gemini-2.5-flash}
prompt: Fix calc.py.
workspace: {path: repo}
tasks:
  - {name: one, verify: {command: python -m pytest -q test_one.py, runner: pytest, attempts: 1}}
  - {name: two, verify: {command: python -m pytest -q test_two.py, runner: pytest, attempts: 1}}
"""


def _replace(old: str, new: str) -> dict:
    return {
        "name": "replace",
        "args": {"file_path": "calc.py", "old_string": old, "new_string": new},
    }


def test_a_forged_bytecode_from_the_first_tasks_code_does_not_pass_the_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_PYC_CACHE", str(tmp_path / "store"))
    root = Path(os.environ.get("AGENTCI_TEST_ROOT", "/var/tmp")) / tmp_path.name
    root.mkdir(parents=True, exist_ok=True)  # outside /tmp: the sandbox has a /tmp of its own
    try:
        commit_repo(root / "repo", FILES)
        (root / "recipe.yaml").write_text(RECIPE)
        mul = "def mul(a, b):\n    return a + b\n"
        turns = [
            {
                "function_calls": [
                    _replace("    return a - b\n", "    return a + b\n"),
                    _replace(mul, mul + PAYLOAD),
                ]
            },  # fmt: skip
            {"text": "Fixed add."},
            {"function_calls": [_replace(PAYLOAD, "\n")]},
            {"text": "Fixed mul."},
        ]
        with FakeGemini(turns) as fake:
            env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": fake.base_url,
                   "GEMINI_API_KEY": "test-key"}  # fmt: skip
            env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
            done = subprocess.run(
                [sys.executable, "-m", "agentci", "run", "recipe.yaml", "--out", "out"],
                cwd=root, env=env, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
        result = json.loads((root / "out" / "result.json").read_text())
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)
    tasks = {t["name"]: t["status"] for t in result["tasks"]}
    assert tasks == {"one": "success", "two": "verify_failed"}, done.stderr[-3000:]
    assert done.returncode != 0
