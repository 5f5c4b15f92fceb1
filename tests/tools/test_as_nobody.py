"""The skip guard of the tests that run agentci as ``nobody`` sees an interpreter that user
cannot load (a pyenv Python under a 0700 /root)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from as_nobody import why_nobody_cannot_run

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="needs root on Linux"
)


def test_an_interpreter_behind_a_private_folder_is_seen(tmp_path: Path) -> None:
    private = tmp_path / "root-home"
    private.mkdir(mode=0o700)
    os.symlink(sys.executable, private / "python")
    reason = why_nobody_cannot_run(str(private / "python"))
    assert reason is not None
    assert reason.startswith(f"user nobody cannot run agentci with {private / 'python'}: ")
