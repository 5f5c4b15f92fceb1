"""Outsider faults: a git repository the *user* already has inside the workspace (a plain clone,
not a registered submodule — ``vendor/``, ``lib/``) is invisible to agentci's snapshots. The
agent's edits inside it are in no output (patch.diff, changed_files, the guards), so
``guards.allowed_paths`` neither refuses nor reverts them: the run reports ``success`` while the
user's uncommitted edit in that clone has been overwritten for good."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentci.events import types as ev
from agentci.testing.case import write_call, write_case

pytestmark = pytest.mark.timeout(180)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", str(cwd),
                    *args], check=True, capture_output=True)  # fmt: skip


def nested_clone(repo: Path) -> Path:
    """``lib/``: a plain clone with a commit and an uncommitted edit of the user's."""
    lib = repo / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    (lib / "x.py").write_text("committed in lib\n")
    git(lib, "add", "x.py")
    git(lib, "commit", "-qm", "lib")
    (lib / "x.py").write_text("my uncommitted edit\n")  # the user's work, in no commit
    return lib


def test_allowed_paths_covers_edits_inside_the_users_nested_clone(tmp_path: Path) -> None:
    script = [
        write_call("lib/x.py", "agent was here\n"),
        write_call("src/a.py", "fixed\n"),
        {"text": "done"},
        {"text": "understood, leaving lib alone"},
    ]
    case = write_case(tmp_path, script, {"guards": {"allowed_paths": ["src/**"]}},
                      files={"src/a.py": "broken\n"})  # fmt: skip
    lib = nested_clone(case.repo)

    run = case.run()
    result = run.result

    assert (lib / "x.py").read_text() == "my uncommitted edit\n", (
        f"status {result['status']} (exit {run.code}), changed_files {result.get('changed_files')}: "
        "the agent overwrote a file outside allowed_paths, in the user's nested clone; nothing "
        "reverted it and no output names it"
    )
    assert result["changed_files"] == ["src/a.py"]
    notes = [
        e.message
        for e in run.events
        if isinstance(e, ev.WarningEvent) and e.kind == "guard_reverted"
    ]
    (note,) = notes  # the user's file as it was before the revert is kept
    kept = note.removeprefix(
        "guard allowed_paths reverted 1 file(s), not in the patch: lib/x.py (as they were before "
        "the revert: "
    )
    assert kept.startswith(".agentci/reverted/") and kept.endswith("/)")
    assert (case.repo / kept[:-1] / "lib/x.py").read_text() == "agent was here\n"


def test_an_edit_inside_the_users_nested_clone_is_in_the_change(tmp_path: Path) -> None:
    script = [write_call("lib/x.py", "agent was here\n"), {"text": "done"}]
    case = write_case(tmp_path, script, {}, files={"src/a.py": "a\n"})
    nested_clone(case.repo)

    run = case.run()

    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["lib/x.py"]
    assert "-my uncommitted edit\n+agent was here\n" in run.patch
