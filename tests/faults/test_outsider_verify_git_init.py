"""Outsider faults: a verify run that runs ``git init`` in a folder that was already there.

docs/verify.md says a git repository a verify run made is deleted after that run and named in
the ``verify_writes_restored`` warning. A snapshot sees a repository only as an untracked folder
holding a ``.git`` (``? lib/``); a ``.git`` made in a folder holding files of the snapshot is
never reported by git (it walks into the folder for those files), so it stayed in the workspace
and nothing said so. One made in a folder holding only ignored files was reported, and the
folder was deleted whole, the user's ignored files with it. Now only the ``.git`` is deleted,
named ``pkg/.git``, and the folder's other files stay.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentci.events import types as ev
from agentci.testing.case import Case, write_call, write_case

pytestmark = pytest.mark.timeout(180)

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
#: Verify runs before the agent (and passes) and after it: once, with the agent's test.
VERIFY = {"command": PYTEST, "runner": "pytest", "skip_if_passing": False}
MOD = "VALUE = 1\n"
CACHE = "the user's build output\n"
#: The test the agent adds: it makes ``FOLDER`` (relative to the workspace) a git repository.
GIT_INIT = """\
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_init():
    subprocess.run(["git", "init", "-q", str(ROOT / {folder!r})], check=True)
"""
FILES = {
    "pkg/mod.py": MOD,
    "tests/test_ok.py": "def test_ok():\n    assert True\n",
    ".gitignore": "*.bin\n",
    "data/cache.bin": CACHE,  # ignored: data/ holds nothing else
}


def init_case(tmp_path: Path, folder: str, **recipe: object) -> Case:
    """A case whose agent adds a test that runs ``git init FOLDER``; verify runs it once."""
    script = [write_call("tests/test_init.py", GIT_INIT.format(folder=folder)), {"text": "done"}]
    return write_case(tmp_path, script, {"verify": VERIFY, **recipe}, files=FILES)


def warnings(run: object, kind: str) -> list[str]:
    """The messages of the run's warning events of ``kind``."""
    return [e.message for e in run.events  # type: ignore[attr-defined]
            if isinstance(e, ev.WarningEvent) and e.kind == kind]  # fmt: skip


def test_a_git_init_in_a_tracked_folder_deletes_only_the_new_git(tmp_path: Path) -> None:
    case = init_case(tmp_path, "pkg")

    run = case.run()

    assert run.code == 0, run.stderr
    assert sorted(p.name for p in (case.repo / "pkg").iterdir()) == ["mod.py"]
    assert (case.repo / "pkg" / "mod.py").read_text() == MOD
    assert run.result["changed_files"] == ["tests/test_init.py"]


def test_a_git_init_in_a_tracked_folder_is_named_in_the_warning(tmp_path: Path) -> None:
    case = init_case(tmp_path, "pkg")

    run = case.run()

    assert warnings(run, "verify_writes_restored") == [
        "verify changed 1 file(s) the patch is made of; put back as they were before it ran:"
        " pkg/.git"
    ]


def test_a_git_init_in_a_folder_of_ignored_files_keeps_them(tmp_path: Path) -> None:
    case = init_case(tmp_path, "data")

    run = case.run()

    assert run.code == 0, run.stderr
    assert sorted(p.name for p in (case.repo / "data").iterdir()) == ["cache.bin"]
    assert (case.repo / "data" / "cache.bin").read_text() == CACHE
    assert warnings(run, "verify_writes_restored") == [
        "verify changed 1 file(s) the patch is made of; put back as they were before it ran:"
        " data/.git"
    ]


def test_a_git_init_of_a_workspace_that_is_no_repository_is_deleted(tmp_path: Path) -> None:
    script = [write_call("tests/test_init.py", GIT_INIT.format(folder=".")), {"text": "done"}]
    case = write_case(tmp_path, script, {"verify": VERIFY, "sandbox": "none"}, files=FILES,
                      git=False)  # fmt: skip

    run = case.run()

    assert run.code == 0, run.stderr
    assert not (case.repo / ".git").exists()
    assert warnings(run, "verify_writes_restored") == [
        "verify changed 1 file(s) the patch is made of; put back as they were before it ran: .git"
    ]
