"""Fixtures shared by the whole suite: real temporary git repositories and recipes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from tool_harness import Harness, init_repo  # noqa: E402

GIT_ENV = {
    "GIT_AUTHOR_NAME": "agentci tests",
    "GIT_AUTHOR_EMAIL": "tests@agentci.invalid",
    "GIT_COMMITTER_NAME": "agentci tests",
    "GIT_COMMITTER_EMAIL": "tests@agentci.invalid",
}


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout (fails the test on error)."""
    import os

    done = subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository at ``root`` holding ``files``, all committed."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def repo_factory(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Make a committed git repo from a dict of files: ``repo_factory({"a.py": "..."})``."""
    counter = iter(range(1000))

    def factory(files: dict[str, str]) -> Path:
        return make_repo(tmp_path / f"repo{next(counter)}", files)

    return factory


@pytest.fixture
def write_recipe(tmp_path: Path) -> Callable[[str], Path]:
    """Write recipe YAML text to a file and return its path."""

    def write(text: str, name: str = "recipe.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A committed git repo with a couple of files (tests/tools has its own)."""
    return init_repo(
        tmp_path / "repo",
        {"README.md": "install with pip\n", "f": "keep me\n", "src/app.py": "x = 1\n"},
    )


@pytest.fixture
def h(ws: Path) -> Harness:
    """Real tool calls through the real scheduler and policy on ``ws``; set ``h.mode`` /
    ``h.rules`` in the test."""
    return Harness(ws=ws)
