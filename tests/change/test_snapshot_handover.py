"""The end of one task is the baseline of the next on the same tree, and a snapshot is reused
while nothing that could write the workspace ran (``ChangeTracker``'s ``activity``).

Real repositories, real snapshots; the ``activity`` is a counter the test moves as a task's
tool calls and verify runs would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentci import workspace_io
from agentci.change.patch import ChangeTracker, Handover
from agentci.change.snapshot import take
from agentci.testing.repo import commit_repo


class Counter:
    """What could have written the workspace so far (as a task counts its tool calls)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> object:
        return self.n


def _start(ws: Path, activity: Counter, previous: Handover | None = None) -> ChangeTracker:
    return asyncio.run(
        ChangeTracker.start(ws, exclude=(".agentci",), activity=activity, previous=previous)
    )


def _files(tracker: ChangeTracker) -> list[str]:
    tracker.agent_started()
    return asyncio.run(tracker.change()).files


def test_the_next_task_is_measured_against_the_last_tasks_end(tmp_path: Path) -> None:
    ws = commit_repo(tmp_path / "r", {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    first = _start(ws, activity := Counter())
    (ws / "a.py").write_text("A = 2\n")
    activity.n += 1
    assert _files(first) == ["a.py"]
    second = _start(ws, later := Counter(), first.handover())
    assert second.baseline.git_dir == first.baseline.git_dir  # no new baseline was taken
    assert second.baseline.tree == take(second.baseline).tree
    (ws / "b.py").write_text("B = 2\n")
    (ws / "c.py").write_text("C = 1\n")
    later.n += 1
    assert _files(second) == ["b.py", "c.py"]
    second.cleanup()


def test_a_snapshot_is_taken_again_once_anything_could_have_written(tmp_path: Path) -> None:
    ws = commit_repo(tmp_path / "r", {"a.py": "A = 1\n"})
    tracker = _start(ws, activity := Counter())
    assert _files(tracker) == []
    (ws / "a.py").write_text("A = 2\n")
    activity.n += 1  # a tool call ran
    assert _files(tracker) == ["a.py"]
    tracker.workspace_changed()  # agentci wrote (a guard's revert): always a new snapshot
    (ws / "a.py").write_text("A = 1\n")
    assert asyncio.run(tracker.change()).files == []
    tracker.cleanup()


def test_a_write_of_agentcis_own_is_seen_without_being_announced(tmp_path: Path) -> None:
    """agentci writes the workspace through workspace_io (a guard putting back an ignored
    file): the tracker's next change is a new snapshot, and its old one is not handed over."""
    ws = commit_repo(tmp_path / "r", {"a.py": "A = 1\n", ".gitignore": ".env\n"})
    tracker = _start(ws, Counter())
    assert _files(tracker) == []
    workspace_io.write_bytes(ws, "a.py", b"A = 3\n")
    workspace_io.write_bytes(ws, ".env", b"TOKEN=1\n")
    assert tracker.handover() is None
    change = asyncio.run(tracker.change())
    assert (change.files, change.ignored_written) == (["a.py"], [".env"])
    handover = tracker.handover()  # the snapshot taken after the writes: handed over
    assert handover is not None
    second = _start(ws, Counter(), handover)
    assert second.baseline.git_dir == tracker.baseline.git_dir
    assert list(second.baseline.ignored_ref) == [".env"]
    second.cleanup()


def test_a_write_of_agentcis_own_in_another_folder_keeps_the_snapshot(tmp_path: Path) -> None:
    """agentci writes below another folder (a batch's other worktree, an output folder): the
    tracker's last snapshot is still the disk as it is, and is handed over."""
    ws = commit_repo(tmp_path / "r", {"a.py": "A = 1\n"})
    (tmp_path / "other").mkdir()
    tracker = _start(ws, Counter())
    assert _files(tracker) == []
    workspace_io.write_bytes(tmp_path / "other", "a.py", b"A = 3\n")
    assert tracker.handover() is not None
    tracker.cleanup()


def test_no_handover_while_a_write_may_have_happened_since_the_last_snapshot(
    tmp_path: Path,
) -> None:
    ws = commit_repo(tmp_path / "r", {"a.py": "A = 1\n"})
    tracker = _start(ws, activity := Counter())
    assert _files(tracker) == []
    activity.n += 1  # e.g. a verify run after the last snapshot
    assert tracker.handover() is None
    tracker.cleanup()


def test_no_carry_over_once_the_agent_changed_the_ignore_rules(tmp_path: Path) -> None:
    """The last snapshot then holds the baseline's rules, not the disk's: the next task takes a
    baseline of its own, where the new rules hold."""
    ws = commit_repo(tmp_path / "r", {".gitignore": "*.log\n", "a.py": "A = 1\n"})
    first = _start(ws, activity := Counter())
    (ws / ".gitignore").write_text("*.log\nbuild/\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.txt").write_text("x\n")
    activity.n += 1
    assert _files(first) == [".gitignore", "build/out.txt"]  # frozen rules: build/ is the agent's
    old = first.baseline.git_dir
    second = _start(ws, Counter(), first.handover())
    assert second.baseline.git_dir != old and not old.exists()
    (ws / "build" / "more.txt").write_text("y\n")
    assert _files(second) == []  # ignored by the rules the second task started with
    assert second.baseline.ignored_ref.keys() >= {"build/out.txt"}
    second.cleanup()


def test_no_carry_over_to_another_folder(tmp_path: Path) -> None:
    one = commit_repo(tmp_path / "one", {"a.py": "A = 1\n"})
    two = commit_repo(tmp_path / "two", {"a.py": "A = 1\n"})
    first = _start(one, activity := Counter())
    activity.n += 1
    assert _files(first) == []
    old = first.baseline.git_dir
    second = _start(two, Counter(), first.handover())
    assert second.baseline.workspace == two.resolve() and not old.exists()
    second.cleanup()
