"""What a task keeps of its baseline verify run's bytecode, and what a later run's view gets
(agentci/policy/pyc_carry.py), on real folders laid out as the bytecode prefix is: a view
mirrors absolute source paths (``<view>/<workspace path>/tests/test_a.<tag>-pytest-<v>.pyc``)."""

from __future__ import annotations

import os
from pathlib import Path

from agentci.policy.pyc_carry import WorkspaceBytecode

PYTEST_PYC = "cpython-311-pytest-9.2.0.pyc"


def _view_of(view: Path, source: Path) -> Path:
    return view / str(source.parent).lstrip("/")


def _layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    workspace, view, outside = tmp_path / "ws", tmp_path / "view", tmp_path / "lib"
    for folder, name in ((workspace / "tests", "test_a"), (outside, "helper")):
        folder.mkdir(parents=True)
        (folder / f"{name}.py").write_text("x = 1\n")
        target = _view_of(view, folder / f"{name}.py")
        target.mkdir(parents=True)
        (target / f"{name}.{PYTEST_PYC}").write_bytes(b"compiled " + name.encode())
    return workspace, view, outside


def test_only_the_workspaces_own_bytecode_is_kept(tmp_path: Path) -> None:
    workspace, view, _outside = _layout(tmp_path)
    carry = WorkspaceBytecode(workspace)
    try:
        assert carry.keep(view) == 1
        assert [k.source for k in carry.kept] == [str(workspace / "tests/test_a.py")]
    finally:
        carry.cleanup()


def test_a_later_view_gets_a_copy_that_its_run_cannot_write_back(tmp_path: Path) -> None:
    workspace, view, _outside = _layout(tmp_path)
    carry = WorkspaceBytecode(workspace)
    try:
        carry.keep(view)
        later = tmp_path / "later"
        assert carry.seed(later) == 1
        seeded = _view_of(later, workspace / "tests/test_a.py") / f"test_a.{PYTEST_PYC}"
        assert not seeded.is_symlink() and seeded.read_bytes() == b"compiled test_a"
        seeded.write_bytes(b"written by the run")
        again = tmp_path / "again"
        carry.seed(again)
        copy = _view_of(again, workspace / "tests/test_a.py") / f"test_a.{PYTEST_PYC}"
        assert copy.read_bytes() == b"compiled test_a"
    finally:
        carry.cleanup()


def test_a_source_rewritten_under_its_old_time_stamps_gets_nothing(tmp_path: Path) -> None:
    workspace, view, _outside = _layout(tmp_path)
    carry = WorkspaceBytecode(workspace)
    try:
        carry.keep(view)
        source = workspace / "tests/test_a.py"
        st = os.stat(source)
        source.write_text("x = 2\n")  # the same size
        os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert carry.seed(tmp_path / "later") == 0
    finally:
        carry.cleanup()


def test_a_link_in_the_view_is_not_kept(tmp_path: Path) -> None:
    workspace, view, outside = _layout(tmp_path)
    folder = _view_of(view, workspace / "tests/test_a.py")
    (folder / f"test_a.{PYTEST_PYC}").unlink()
    (folder / f"test_a.{PYTEST_PYC}").symlink_to(outside / "helper.py")
    carry = WorkspaceBytecode(workspace)
    assert carry.keep(view) == 0
    assert carry.folder is None


def test_cleanup_removes_what_was_kept(tmp_path: Path) -> None:
    workspace, view, _outside = _layout(tmp_path)
    carry = WorkspaceBytecode(workspace)
    carry.keep(view)
    folder = carry.folder
    assert folder is not None and folder.is_dir()
    carry.cleanup()
    assert not folder.exists()
