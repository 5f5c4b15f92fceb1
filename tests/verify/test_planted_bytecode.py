"""A .pyc the agent changes is never what verify runs, also with the bytecode store.

Python trusts a ``__pycache__`` entry whose header matches its source's modification time and
size. The repository's own ignored bytecode was there before the agent (so it is the user's
and stays in place while verify runs); the model rewrites it with a right ``add`` under the
wrong source's header. verify must still run the source: its ``PYTHONPYCACHEPREFIX`` keeps
Python away from ``__pycache__`` folders, and the store learns the workspace's module names
from the baseline without ever taking their bytecode (agentci/policy/pyc_cache.py).
"""

from __future__ import annotations

import os
import py_compile
import sys
from pathlib import Path

import pytest
from verify_helpers import run_task

from agentci.outcome import Status
from agentci.providers.scripted import Reply, call
from agentci.testing.repo import commit_repo

#: Rewrites the .pyc of the module named on the command line: a right add, the header of the
#: wrong source beside it (its mtime and size), so Python would take it for that source.
PLANT = (
    "import os, sys\n"
    "from importlib._bootstrap_external import _code_to_timestamp_pyc\n"
    "src = sys.argv[1]\n"
    "folder, name = os.path.split(src)\n"
    "pyc = os.path.join(folder, '__pycache__', name[:-3] + '.' + sys.implementation.cache_tag"
    " + '.pyc')\n"
    "st = os.stat(src)\n"
    "code = compile('def add(a, b):\\n    return a + b\\n', src, 'exec')\n"
    "open(pyc, 'wb').write(_code_to_timestamp_pyc(code, st.st_mtime, st.st_size))\n"
)
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
#: add lives in calc/__init__.py, or in a module of a .venv inside the workspace that
#: conftest.py puts on sys.path (as a project's own virtualenv would be).
LAYOUTS = {
    "calc/__init__.py": {
        "calc/__init__.py": "def add(a, b):\n    return a - b\n",
        "tests/test_calc.py": TEST,
        ".gitignore": "__pycache__/\n",
    },
    ".venv/site/calc_impl.py": {
        "calc/__init__.py": "from calc_impl import add  # noqa: F401\n",
        "conftest.py": "import sys\n\nsys.path.insert(0, '.venv/site')\n",
        "tests/test_calc.py": TEST,
        ".gitignore": "__pycache__/\n.venv/\n",
    },
}


@pytest.mark.parametrize("module", list(LAYOUTS))
def test_a_pyc_the_agent_rewrote_is_not_what_verify_runs(
    module: str, outside_tmp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_PYC_CACHE", str(tmp_path / "store"))
    repo = outside_tmp / "repo"
    commit_repo(repo, LAYOUTS[module])
    source = repo / module
    if module.startswith(".venv/"):
        source.parent.mkdir(parents=True)
        source.write_text("def add(a, b):\n    return a - b\n")
    tag = sys.implementation.cache_tag
    pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
    py_compile.compile(str(source), cfile=str(pyc), doraise=True)  # the user's, before the run
    users = pyc.read_bytes()
    replies = [
        Reply(calls=[call("write_file", file_path="plant.py", content=PLANT)]),
        Reply(calls=[call("run_shell_command", command=f"python plant.py {module}")]),
        Reply(text="Fixed add."),
    ]
    recipe = {
        "prompt": "Fix add.",
        "verify": {"command": "python -m pytest -q", "runner": "pytest", "attempts": 1},
        "policy": {
            "rules": [
                {"tool": "run_shell_command", "command": "python plant.py", "decision": "allow"}
            ]
        },  # fmt: skip
    }
    done = run_task(repo, recipe, replies, tmp_path / "out")
    assert pyc.read_bytes()[:16] == users[:16] and pyc.read_bytes() != users  # planted
    assert [(v.phase, v.passed) for v in done.verify_events] == [
        ("baseline", False),
        ("attempt", False),
    ]
    assert done.report.status is Status.verify_failed
    store = tmp_path / "store"
    assert any(store.rglob(f"*.{tag}.pyc"))  # the store was filled from the baseline
    assert not Path(f"{store}{os.path.realpath(repo)}").exists()  # with nothing of the workspace
