"""Fixtures of the verify tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside /tmp, as a CI checkout is: the sandbox has a /tmp of its own, which
    would hide a workspace under /tmp from the bytecode store's fill whatever it checks."""
    folder = Path(tempfile.mkdtemp(prefix="agentci-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
