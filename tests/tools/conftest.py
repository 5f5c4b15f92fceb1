"""Fixtures for the tool tests: a real temporary git repo and a harness around it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_harness import Harness, init_repo


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A committed git repo with a couple of files."""
    return init_repo(
        tmp_path / "repo",
        {"README.md": "install with pip\n", "src/app.py": "def add(a, b):\n    return a - b\n"},
    )


@pytest.fixture
def h(ws: Path) -> Harness:
    """A yolo-mode harness on ``ws`` (policy tests use their own modes)."""
    return Harness(ws=ws)
