"""Attack (w5): a tracked file the agent replaces with a named pipe (``rm a; mkfifo a``) or a
socket goes missing from the change without a word.

The snapshot's walk (agentci/change/walk.py) hands the path to ``git update-index``, which
refuses it ("unsupported file type"); the fallback ``git add -A --ignore-errors`` skips it with
"can only add regular files, symbolic links or git-directories", a message
``snapshot._add_problems`` does not read. The file's content is gone from the workspace, yet the
change (changed_files, patch.diff) still holds the old file unchanged, and the snapshot does not
name it as unreadable either (docs: "a file git cannot read is reported, not silently
skipped")."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agentci.change.change import change_of
from agentci.change.snapshot import capture_baseline, take
from agentci.testing.repo import commit_repo

pytestmark = pytest.mark.timeout(120)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


@pytest.mark.parametrize("make", [_fifo, _socket], ids=["fifo", "socket"])
def test_attack_w5_a_tracked_file_turned_special_is_in_the_change_or_reported(
    tmp_path: Path, make
) -> None:
    ws = commit_repo(tmp_path / "r", {"app.py": "x = 1\n", "data.txt": "precious\n"})
    base = capture_baseline(ws)
    (ws / "data.txt").unlink()
    make(ws / "data.txt")
    (ws / "app.py").write_text("x = 2\n")
    snap = take(base)
    change = change_of(base, snap)
    assert "app.py" in change.files
    # the old file is no longer in the workspace: the change deletes it, or the snapshot says
    # it could not store what is there now
    assert "data.txt" in change.files or "data.txt" in snap.unreadable, (
        change.files,
        snap.unreadable,
    )
