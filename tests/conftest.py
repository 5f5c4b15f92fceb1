"""Fixtures shared by the whole suite: real temporary git repositories and recipes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from tool_harness import Harness, init_repo  # noqa: E402

from agentci.testing.repo import commit_repo  # noqa: E402


@pytest.fixture
def repo_factory(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Make a committed git repo from a dict of files: ``repo_factory({"a.py": "..."})``."""
    counter = iter(range(1000))

    def factory(files: dict[str, str]) -> Path:
        root = tmp_path / f"repo{next(counter)}"
        commit_repo(root, files)
        return root

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
