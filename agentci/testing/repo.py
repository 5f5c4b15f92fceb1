"""Real git repositories for tests: made, committed and inspected with the real ``git``.

    repo = commit_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a - b\n"})
    assert git(repo, "status", "--porcelain") == ""

The caller's ``GIT_*`` variables are dropped and a fixed author is set, so a test runs the
same on a developer's machine, in a git hook, and in CI.
"""

from __future__ import annotations

import os
import subprocess
import time
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


def racy_edit(repo: Path, name: str, text: str) -> None:
    """Replace tracked file ``name`` with ``text`` (the same size) so that only git's racy-clean
    rule can see the change: the file's stat data (to the second, as git compares them) equals
    the index entry's, and its mtime equals the index file's own mtime. Returns once that second
    has passed, so an index copy written now would be newer than the edit."""
    path = repo / name
    old = path.read_bytes()
    if len(old) != len(text.encode()):
        raise ValueError("a racy edit keeps the file's size")
    for _ in range(50):
        path.write_bytes(old)  # fresh stat data, the committed content
        git(repo, "add", "--", name)  # the index entry and the index file: this second
        path.write_text(text)
        index = (repo / ".git" / "index").stat()
        os.utime(path, ns=(index.st_atime_ns, index.st_mtime_ns))
        entry = _index_entry_seconds(repo, name)
        st = path.stat()
        same_stat = entry == (int(st.st_ctime), int(st.st_mtime))
        if same_stat and entry[1] == int(index.st_mtime):
            break
    else:
        raise AssertionError("could not make a racy edit in 50 tries")
    while time.time() < int(index.st_mtime) + 1.05:
        time.sleep(0.05)


def _index_entry_seconds(repo: Path, name: str) -> tuple[int, int]:
    """(ctime, mtime) seconds of the index entry of ``name`` (``git ls-files --debug``)."""
    out = git(repo, "ls-files", "--debug", "--", name)
    seconds = {}
    for line in out.splitlines():
        key, _, value = line.strip().partition(":")
        if key in ("ctime", "mtime"):
            seconds[key] = int(value.strip().split(":")[0])
    return seconds["ctime"], seconds["mtime"]
