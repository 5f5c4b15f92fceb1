"""The real ``pre-commit`` tool runs agentci's ``.pre-commit-hooks.yaml`` on a repository whose
staged files a scripted model fixes: each project commits a ``.pre-commit-config.yaml`` that
points at agentci's source at one commit, as a user's does (docs/pre-commit.md), and runs
``pre-commit run`` (the staged files, as ``git commit`` does).

pre-commit installs the hook's environment with pip once per repository and commit (about
30 s of CPU) into its store, which the tests of this module share (a private
``PRE_COMMIT_HOME``); each test still makes its own project. Both tests are marked
``pre_commit_install`` (``pytest -m 'not pre_commit_install'`` leaves them out while
developing; the full suite and CI run them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from action_harness import ROOT
from precommit_project import FILES
from tool_harness import GIT_ENV, init_repo

pytestmark = [pytest.mark.pre_commit_install, pytest.mark.timeout(900)]


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    """agentci's source as it is now (committed into a scratch repository, so uncommitted
    work is tested too), its commit, and an environment with a private PRE_COMMIT_HOME."""
    base = tmp_path_factory.mktemp("pre-commit")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split("\0")  # fmt: skip
    src = base / "agentci-src"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(base / "home")}
    env.pop("GITHUB_ACTIONS", None)
    init_repo(src)
    sha = _run(["git", "rev-parse", "HEAD"], src, env).stdout.strip()
    return src, sha, env


def _project(hooks: tuple[Path, str, dict[str, str]], name: str) -> Path:
    """The project, with a committed ``.pre-commit-config.yaml`` naming agentci's ``agentci``
    hook at the source's commit."""
    src, sha, _ = hooks
    config = {"repos": [{"repo": str(src), "rev": sha, "hooks": [{"id": "agentci"}]}]}
    return init_repo(
        hooks[0].parent / name, {**FILES, ".pre-commit-config.yaml": json.dumps(config)}
    )


def _pre_commit_run(project: Path, hooks: tuple[Path, str, dict[str, str]]):
    """``pre-commit run``: the hooks on the staged files, as ``git commit`` runs them."""
    return _run([sys.executable, "-m", "pre_commit", "run"], project, hooks[2])


def test_staged_files_that_pass_let_the_commit_through_whatever_their_names(hooks_repo):
    """``--files-param=nope.py`` is a file (the hook's entry ends in ``--``); as an option it
    would name a parameter the recipe does not have, exit 2."""
    project = _project(hooks_repo, "passing")
    (project / "other.py").write_text("y = 3\n")
    (project / "--files-param=nope.py").write_text("z = 1\n")
    _run(["git", "add", "--", "other.py", "--files-param=nope.py"], project, hooks_repo[2])
    done = _pre_commit_run(project, hooks_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agentci" in done.stdout and "Passed" in done.stdout


def test_a_fixed_file_fails_the_hook_so_it_is_staged_again(hooks_repo):
    project = _project(hooks_repo, "failing")
    (project / "app.py").write_text("x = 2  # BAD\n")
    _run(["git", "add", "app.py"], project, hooks_repo[2])
    done = _pre_commit_run(project, hooks_repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "files were modified by this hook" in done.stdout
    assert "changed 1 file(s): app.py" in done.stdout
    assert (project / "app.py").read_text() == "x = 2\n"
