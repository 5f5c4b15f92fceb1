"""Real git repositories for tests: made, committed and inspected with the real ``git``.

    repo = commit_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a - b\n"})
    assert git(repo, "status", "--porcelain") == ""

The caller's ``GIT_*`` variables are dropped and a fixed author is set, so a test runs the
same on a developer's machine, in a git hook, and in CI.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: The author and committer of every test commit.
GIT_AUTHOR = {
    "GIT_AUTHOR_NAME": "agentci tests",
    "GIT_AUTHOR_EMAIL": "tests@agentci.invalid",
    "GIT_COMMITTER_NAME": "agentci tests",
    "GIT_COMMITTER_EMAIL": "tests@agentci.invalid",
}


def git_env() -> dict[str, str]:
    """This process's environment without ``GIT_*`` variables, plus :data:`GIT_AUTHOR`."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_AUTHOR}


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``git ARGS`` in ``repo`` and return its stdout; a failure raises with git's stderr.

    Local clones are allowed (``protocol.file.allow``) and line endings are left alone
    (``core.autocrlf=false``)."""
    cmd = ["git", "-c", "protocol.file.allow=always", "-c", "core.autocrlf=false", *args]
    done = subprocess.run(cmd, cwd=repo, env=env or git_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {repo}:\n{done.stderr}")
    return done.stdout


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (relative path → text) under ``root``, making folders as needed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit_repo(
    root: Path, files: dict[str, str] | None = None, *, message: str = "initial"
) -> Path:
    """A git repository at ``root`` (branch ``main``) holding ``files``, all committed (an empty
    commit when there are none). Returns its real path (symlinks resolved)."""
    root.mkdir(parents=True, exist_ok=True)
    write_files(root, files or {})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return Path(os.path.realpath(root))
