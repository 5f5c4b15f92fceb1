"""Fixtures: the tool harness from tests/tools, on a real temporary git repo."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from tool_harness import Harness, init_repo  # noqa: E402


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A committed git repo with a couple of files."""
    return init_repo(
        tmp_path / "repo",
        {"README.md": "install with pip\n", "f": "keep me\n", "src/app.py": "x = 1\n"},
    )


@pytest.fixture
def h(ws: Path) -> Harness:
    """A harness on ``ws``; set ``h.mode`` / ``h.rules`` in the test."""
    return Harness(ws=ws)
