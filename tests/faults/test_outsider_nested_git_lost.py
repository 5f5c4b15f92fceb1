"""Outsider faults: the agent damages a git repository the user keeps inside the workspace (a
plain clone in ``nested/`` with an unpushed commit). agentci's private snapshot repository used
to borrow that clone's objects (``objects/info/alternates``): once the agent deleted
``nested/.git`` or pruned its objects, every diff failed and the run ended internal_error (exit
70) with an empty patch, although the agent's change outside the clone was plain. The clone's
files that were still on disk showed as deleted, with a ``160000`` gitlink added."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentci.events import types as ev
from agentci.testing.case import Case, shell_call, write_case

pytestmark = pytest.mark.timeout(180)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", str(cwd),
                    *args], check=True, capture_output=True)  # fmt: skip


def case_with_clone(tmp_path: Path, command: str, recipe: dict[str, object]) -> Case:
    """A workspace holding ``nested/``: a clone of ``lib`` with an unpushed commit."""
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    (lib / "x.py").write_text("x = 1\n")
    git(lib, "add", "x.py")
    git(lib, "commit", "-qm", "lib")
    script = [shell_call(command), {"text": "done"}, {"text": "done"}]
    case = write_case(tmp_path / "case", script, {"policy": {"mode": "yolo"}, **recipe},
                      files={"a.txt": "a\n"})  # fmt: skip
    git(case.repo, "clone", "-q", str(lib), "nested")
    (case.repo / "nested" / "w.py").write_text("wip\n")
    git(case.repo / "nested", "add", "w.py")
    git(case.repo / "nested", "commit", "-qm", "unpushed work")
    return case


DELETE = "rm -rf nested/.git; echo ok > a.txt"
PRUNE = (
    "git -C nested reset -q --hard HEAD~1 && git -C nested reflog expire --expire=now --all"
    " && git -C nested gc -q --prune=now; echo ok > a.txt"
)
A_TXT = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+ok\n"


def warnings(case_run: object, kind: str) -> list[str]:
    """The messages of the run's warning events of ``kind``."""
    return [e.message for e in case_run.events  # type: ignore[attr-defined]
            if isinstance(e, ev.WarningEvent) and e.kind == kind]  # fmt: skip


def test_deleting_a_nested_clones_git_dir_keeps_the_patch(tmp_path: Path) -> None:
    case = case_with_clone(tmp_path, DELETE, {})

    run = case.run()

    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["a.txt"]
    assert run.patch == (
        "diff --git a/a.txt b/a.txt\nindex 78981922613b2afb6025042ff6bd878ac1994e85.."
        "9766475a4185a151dc9d56d614ffb9aaea3bfd42 100644\n" + A_TXT
    )


def test_deleting_a_nested_clones_git_dir_is_reported(tmp_path: Path) -> None:
    case = case_with_clone(tmp_path, DELETE, {})

    run = case.run()

    assert warnings(run, "nested_repository") == [
        "the git repository at nested was removed or damaged during the run (its .git is gone);"
        " its commits and history are not in the patch"
    ]
    assert (
        "removed or damaged during the run** (their .git deleted, or their checked-out commit pruned): `nested`"
        in (case.out / "summary.md").read_text()
    )
    assert run.result["tasks"][0]["extra"]["patch"]["nested_repositories_damaged"] == ["nested"]


def test_pruning_a_nested_clones_objects_keeps_the_patch(tmp_path: Path) -> None:
    case = case_with_clone(tmp_path, PRUNE, {})

    run = case.run()

    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["a.txt", "nested/w.py"]
    assert "diff --git a/nested/w.py b/nested/w.py\ndeleted file mode 100644\n" in run.patch
    assert A_TXT in run.patch


def test_pruning_a_nested_clones_unpushed_commit_is_reported(tmp_path: Path) -> None:
    case = case_with_clone(tmp_path, PRUNE, {})

    run = case.run()

    assert len(warnings(run, "nested_repository")) == 1
    assert warnings(run, "nested_repository")[0].startswith(
        "the git repository at nested was removed or damaged during the run (the commit it had"
        " checked out, "
    )


def test_guards_with_a_deleted_nested_git_dir_converge(tmp_path: Path) -> None:
    case = case_with_clone(tmp_path, DELETE, {"guards": {"allowed_paths": ["a.txt"]}})

    run = case.run()

    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["a.txt"]
    assert warnings(run, "guard_reverted") == []
    assert (case.repo / "nested" / "w.py").read_text() == "wip\n"
