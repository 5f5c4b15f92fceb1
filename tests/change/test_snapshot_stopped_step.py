"""A snapshot that stops after writing the private index and before its tree becomes the private
``HEAD`` (its ``git write-tree`` failed or was killed at its deadline — the wall clock, while a
verify snapshot that the same wall clock cancelled went on in its thread) must not make the next
snapshot reuse the older ``HEAD``: that one's walk compares the work tree with the index, finds
nothing changed, and the final patch came out empty (changed_files []) with the agent's work on
disk. A ``git`` on ``PATH`` (a wrapper of the real one) fails the first ``write-tree`` once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentci.change.change import change_of, patch_text
from agentci.change.patch import capture_baseline
from agentci.change.privgit import GitFailed
from agentci.change.snapshot import take
from agentci.testing.repo import commit_repo

WRAPPER = """\
#!/bin/sh
for arg in "$@"; do
    if [ "$arg" = write-tree ] && [ ! -e {flag} ]; then
        : > {flag}
        echo "fatal: the write-tree of this test fails once" >&2
        exit 128
    fi
done
exec {real} "$@"
"""


def test_the_snapshot_after_one_stopped_before_its_tree_holds_the_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    ws = commit_repo(tmp_path / "repo", {"README.md": "# project\n"})
    baseline = capture_baseline(ws)
    (ws / "new.txt").write_text("the agent's work\n")
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(WRAPPER.format(flag=tmp_path / "failed-once", real=real))
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(GitFailed, match="write-tree"):
        take(baseline)
    change = change_of(baseline, take(baseline))
    assert change.files == ["new.txt"]
    assert "+the agent's work" in patch_text(baseline, change).text
    baseline.cleanup()
