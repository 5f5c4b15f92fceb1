"""The ignored-file scan is cut short at a known place (``AGENTCI_IGNORED_SCAN_LIMIT``).

Files are fingerprinted path by path in sorted order, so a scan cut at N files always stops at
the same place: an ignored file the agent writes before that place is reported as written; one
past it cannot be told from the user's own, so it never counts as the agent's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.change.overlay import record_verify
from agentci.change.patch import capture_baseline, current_change
from agentci.change.snapshot import take
from agentci.errors import InvalidInput
from agentci.testing.repo import commit_repo


def _many_ignored(tmp_path: Path, count: int) -> Path:
    ws = commit_repo(tmp_path / "r", {".gitignore": "node_modules/\n", "app.py": "x = 1\n"})
    (ws / "node_modules" / "b").mkdir(parents=True)
    for i in range(count):
        (ws / "node_modules" / "b" / f"f{i:03d}").write_text("user\n")
    return ws


def test_a_file_written_before_the_cut_is_the_agents_one_past_it_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_IGNORED_SCAN_LIMIT", "5")
    ws = _many_ignored(tmp_path, 10)
    base = capture_baseline(ws)
    (ws / "node_modules" / "a").mkdir()
    (ws / "node_modules" / "a" / "planted.pth").write_text("import os\n")
    (ws / "node_modules" / "b" / "f000").unlink()  # the scan now reaches one file further
    (ws / "node_modules" / "b" / "f099").write_text("new\n")
    change = current_change(base)
    assert change.ignored_written == ["node_modules/a/planted.pth"]
    assert change.ignored_scan_truncated


def test_a_complete_scan_reports_every_new_ignored_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCI_IGNORED_SCAN_LIMIT", "11")
    ws = _many_ignored(tmp_path, 10)
    base = capture_baseline(ws)
    (ws / "node_modules" / "b" / "f099").write_text("new\n")
    change = current_change(base)
    assert change.ignored_written == ["node_modules/b/f099"]
    assert not change.ignored_scan_truncated


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_limit_that_is_not_a_positive_number_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("AGENTCI_IGNORED_SCAN_LIMIT", value)
    ws = _many_ignored(tmp_path, 1)
    with pytest.raises(InvalidInput, match=r"^AGENTCI_IGNORED_SCAN_LIMIT='.*': expected a whole"):
        capture_baseline(ws)


def test_a_hidden_file_moved_away_and_back_around_verify_stays_the_agents(tmp_path: Path) -> None:
    ws = _many_ignored(tmp_path, 3)
    base = capture_baseline(ws)
    hidden = ws / "node_modules" / "b" / "conftest.py"
    hidden.write_text("fix = 1\n")
    before = take(base)
    # set aside while verify runs, moved back, then verify runs again with it: a new ctime
    hidden.rename(ws / "aside.py")
    (ws / "aside.py").rename(hidden)
    record_verify(base, before, take(base))
    assert current_change(base).ignored_written == ["node_modules/b/conftest.py"]
