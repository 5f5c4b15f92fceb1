"""The baseline's copies of ignored files (:mod:`agentci.verify.kept`) never follow a link.

The weakened_tests guard and ``allowed_paths`` keep a copy of every ignored file at the
baseline, read on the host. The workspace (a pull request's files, a setup step's leftovers) may
hold links in an ignored ``.venv``, or swap a folder for a link between the baseline's scan and
the copy: no byte of a host file outside the workspace may end up in the copies.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentci.change.patch import capture_baseline
from agentci.testing.repo import commit_repo
from agentci.verify.kept import keep_ignored, read_kept

SECRET = "host-secret-0451\n"


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    host = tmp_path / "host"
    host.mkdir()
    (host / "mod.py").write_text(SECRET)
    ws = commit_repo(tmp_path / "r", {".gitignore": ".venv/\n", "app.py": "x = 1\n"})
    (ws / ".venv" / "lib").mkdir(parents=True)
    (ws / ".venv" / "lib" / "mod.py").write_text("user = 1\n")
    return ws, host


def _copies(base: object) -> str:
    return (Path(base.git_dir) / "kept.bin").read_text(errors="replace")  # type: ignore[attr-defined]


def test_links_in_an_ignored_folder_are_not_copied(tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path)
    os.symlink(host / "mod.py", ws / ".venv" / "linked.py")
    os.symlink(host, ws / ".venv" / "linked_dir")
    with capture_baseline(ws) as base:
        keep_ignored(base)
        assert sorted(base.kept) == [".venv/lib/mod.py"]
        assert read_kept(base, ".venv/lib/mod.py") == b"user = 1\n"
        assert SECRET not in _copies(base)


def test_a_folder_swapped_for_a_link_after_the_scan_is_not_followed(tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path)
    with capture_baseline(ws) as base:
        assert ".venv/lib/mod.py" in base.ignored_ref  # the scan saw a regular file there
        (ws / ".venv" / "lib" / "mod.py").unlink()
        (ws / ".venv" / "lib").rmdir()
        os.symlink(host, ws / ".venv" / "lib")
        keep_ignored(base)
        assert base.kept == {}
        assert SECRET not in _copies(base)
