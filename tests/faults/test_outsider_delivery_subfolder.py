"""Outsider (rel2 H): the Action's create-pr committed a subfolder workspace's patch at the
repository's root.

patch.diff's paths are relative to the recipe's workspace (``workspace.path: services/api``).
The delivery applied it to the checkout's HEAD without ``--directory``: the edit of calc.py
failed (no pull request) and a new file landed at the root. result.json now says where the
workspace is (``tasks[].extra.patch.directory``) and the delivery applies the patch there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentci.delivery.pull_request import commit_patch, patch_directory, scratch_repository
from agentci.testing.case import tool_call, write_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(180)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def test_outsider_a_subfolder_workspaces_patch_is_delivered_in_its_folder(tmp_path: Path) -> None:
    files = {
        "README.md": "# monorepo\n",
        "services/api/calc.py": "def add(a, b):\n    return a - b\n",
    }
    script = [
        {"calls": [write_call("util.py", "X = 1\n")["calls"][0],
                   tool_call("replace", file_path="calc.py", old_string="a - b",
                             new_string="a + b")["calls"][0]]},
        {"text": "Fixed add."},
    ]  # fmt: skip
    case = write_case(tmp_path, script, {"workspace": {"path": "services/api"}, "sandbox": "none"},
                      files=files)  # fmt: skip
    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo)
    run = Run(done.returncode, done.stdout, done.stderr, case.out)
    assert run.result["status"] == "success", run.stderr[-800:]
    task = run.result["tasks"][0]
    assert task["extra"]["patch"]["directory"] == "services/api"
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    with scratch_repository(case.repo) as scratch:
        directory = patch_directory(task["extra"]["patch"]["directory"])
        commit = commit_patch(scratch, run.patch.encode(), "agentci: fix", directory)
        _git(tmp_path, "--git-dir", str(scratch.git_dir), "push", "-q", str(remote),
             f"{commit}:refs/heads/agentci/fix")  # fmt: skip
    changed = _git(remote, "show", "--name-status", "--format=", "agentci/fix")
    assert changed.splitlines() == ["M\tservices/api/calc.py", "A\tservices/api/util.py"]
    assert _git(remote, "show", "agentci/fix:services/api/calc.py") == (
        "def add(a, b):\n    return a + b\n"
    )
