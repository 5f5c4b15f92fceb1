"""The bytecode store's own rules (agentci/policy/pyc_cache.py): where it is, what a verify
run's view teaches it, and when a verify command stops making a view."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from agentci.policy.pyc_cache import is_quiet, learned, make_view, mark_quiet, store_dir

TAG = sys.implementation.cache_tag
MAGIC = importlib.util.MAGIC_NUMBER


def test_the_store_is_the_folder_named_or_off(tmp_path: Path) -> None:
    assert store_dir({"AGENTCI_PYC_CACHE": str(tmp_path / "s")}) == tmp_path / "s"
    assert (tmp_path / "s").is_dir()
    assert store_dir({"AGENTCI_PYC_CACHE": "off"}) is None
    assert store_dir({"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "c")}) == (
        tmp_path / "c" / "agentci" / "pyc"
    )


def test_a_store_others_can_write_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert store_dir({"AGENTCI_PYC_CACHE": str(shared)}) is None


def test_a_view_teaches_only_the_names_a_run_wrote(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "usr/lib/py").mkdir(parents=True)
    (store / "usr/lib/py/json.cpython-311.pyc").write_bytes(MAGIC + bytes(12))
    view = make_view(store)
    try:
        assert (view / "usr/lib/py/json.cpython-311.pyc").is_symlink()
        (view / "usr/lib/py/ast.cpython-311.pyc").write_bytes(MAGIC + bytes(12))
        (view / "ws").mkdir()
        (view / f"ws/test_x.{TAG}-pytest-9.2.0.pyc").write_bytes(MAGIC + bytes(12))
        (view / f"ws/mod.{TAG}.opt-1.pyc").write_bytes(MAGIC + bytes(12))
        (view / f"ws/short.{TAG}.pyc").write_bytes(b"\x00")
        assert learned(view) == [("/usr/lib/py/ast.py", "cpython-311", MAGIC.hex())]
    finally:
        shutil.rmtree(view)


def test_a_command_that_taught_nothing_sees_the_store_read_only(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    assert not is_quiet(store, "ruff check")
    mark_quiet(store, "ruff check", quiet=True)
    assert is_quiet(store, "ruff check") and not is_quiet(store, "pytest")
    assert is_quiet(store, "ruff check src/a.py")  # per program: the files vary
    mark_quiet(store, "ruff check", quiet=False)
    assert not is_quiet(store, "ruff check")
    view = make_view(store)
    try:
        assert list(view.iterdir()) == []  # the store's notes are not bytecode
    finally:
        os.rmdir(view)


def test_python_of_one_virtualenv_that_taught_nothing_leaves_another_learning(
    tmp_path: Path,
) -> None:
    # The note was per program name: once any `python ...` verify on the machine had taught
    # the store nothing, every other virtualenv's `python -m pytest` saw the store read-only
    # for a day and compiled pytest and its imports again on every run.
    store = tmp_path / "store"
    store.mkdir()
    venv_a, venv_b = f"{tmp_path}/a/bin:/usr/bin", f"{tmp_path}/b/bin:/usr/bin"
    mark_quiet(store, "python -m pytest -q", quiet=True, path=venv_a)
    assert is_quiet(store, "python -m pytest tests", path=venv_a)
    assert not is_quiet(store, "python -m pytest -q", path=venv_b)
    mark_quiet(store, f"{tmp_path}/a/bin/python -m pytest", quiet=True, path=venv_b)
    assert is_quiet(store, f"{tmp_path}/a/bin/python -m pytest -x", path=venv_a)
    assert not is_quiet(store, f"{tmp_path}/b/bin/python -m pytest", path=venv_b)
