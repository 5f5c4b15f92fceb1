"""prepare_workspace on real temp folders and git repos."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentci.change.patch import capture_baseline, changed_files
from agentci.errors import InvalidInput
from agentci.recipe.schema import Workspace
from agentci.testing.repo import git
from agentci.workspace import ensure_git, prepare_workspace


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("x = 1\n")
    (root / "README").write_text("hi\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def test_none_works_in_place(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    pw = prepare_workspace(Workspace(path="proj"), base_dir=tmp_path)
    assert pw.path == (tmp_path / "proj").resolve() == pw.original
    assert pw.isolation == "none"
    pw.cleanup()
    assert pw.path.exists()
    assert not (pw.path / ".git").exists()  # never git-inits the user's folder


def test_missing_path_is_invalid_input(tmp_path: Path) -> None:
    for iso in ("none", "copy", "worktree"):
        with pytest.raises(InvalidInput, match="does-not-exist"):
            prepare_workspace(Workspace(path="does-not-exist", isolation=iso), base_dir=tmp_path)


def test_copy_of_git_repo(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "src" / "m.py").write_text("x = 'uncommitted'\n")
    (repo / ".agentci" / "out").mkdir(parents=True)
    (repo / ".agentci" / "out" / "old.json").write_text("{}")
    head = git(repo, "rev-parse", "HEAD")
    with prepare_workspace(Workspace(path="repo", isolation="copy"), base_dir=tmp_path) as pw:
        assert pw.path != repo.resolve() and pw.original == repo.resolve()
        assert (pw.path / "src" / "m.py").read_text() == "x = 'uncommitted'\n"
        assert not (pw.path / ".agentci").exists()
        assert git(pw.path, "status", "--porcelain") == ""  # fresh repo, all committed
        assert git(pw.path, "rev-parse", "HEAD") != head  # not the user's history
        (pw.path / "README").write_text("changed in the copy\n")
        copy_path = pw.path
    assert not copy_path.exists()
    assert (repo / "README").read_text() == "hi\n"


def test_copy_of_plain_folder_becomes_repo(tmp_path: Path) -> None:
    src = tmp_path / "plain"
    src.mkdir()
    (src / "f.txt").write_text("f\n")
    pw = prepare_workspace(Workspace(path="plain", isolation="copy"), base_dir=tmp_path)
    try:
        assert (pw.path / ".git").is_dir()
        assert git(pw.path, "ls-files").split() == ["f.txt"]
        assert not (src / ".git").exists()
        base = capture_baseline(pw.path)
        (pw.path / "f.txt").write_text("g\n")
        assert changed_files(base) == ["f.txt"]
    finally:
        pw.cleanup()
        pw.cleanup()  # idempotent


def test_worktree_of_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "README").write_text("dirty\n")
    ws = Workspace(path="repo/src", isolation="worktree")
    pw = prepare_workspace(ws, base_dir=tmp_path)
    wt_root = pw.path.parent
    try:
        assert pw.path.name == "src" and (pw.path / "m.py").read_text() == "x = 1\n"
        assert (wt_root / "README").read_text() == "hi\n"  # HEAD, not the dirty file
        assert str(wt_root) in git(repo, "worktree", "list")
        assert pw.base_commit == git(repo, "rev-parse", "HEAD").strip()
    finally:
        pw.cleanup()
    assert not wt_root.exists()
    assert str(wt_root) not in git(repo, "worktree", "list")
    assert (repo / "README").read_text() == "dirty\n"


def test_worktree_needs_git_repo_and_commit(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(InvalidInput, match="not in one"):
        prepare_workspace(Workspace(path="plain", isolation="worktree"), base_dir=tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(InvalidInput, match="has none yet"):
        prepare_workspace(Workspace(path="empty", isolation="worktree"), base_dir=tmp_path)


def test_ensure_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert ensure_git(repo / "src") == repo.resolve()
    (tmp_path / "plain").mkdir()
    assert ensure_git(tmp_path / "plain") is None


def _loose_objects(git_dir: Path) -> set[str]:
    """The ids of the loose objects stored in a git dir itself (not its alternates)."""
    objects = git_dir / "objects"
    return {f"{d.name}{f.name}" for d in objects.glob("??") for f in d.iterdir()}


def test_a_copy_stores_only_what_the_original_repository_does_not_have(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "src" / "m.py").write_text("x = 'uncommitted'\n")
    (repo / "new.txt").write_text("untracked\n")
    with prepare_workspace(Workspace(path="repo", isolation="copy"), base_dir=tmp_path) as pw:
        stored = _loose_objects(pw.path / ".git")
        blobs = {
            line.split()[2]: line.split("\t")[1]
            for line in git(pw.path, "ls-tree", "-r", "HEAD").splitlines()
        }
        assert sorted(blobs.values()) == ["README", "new.txt", "src/m.py"]
        mine = sorted(path for oid, path in blobs.items() if oid in stored)
        assert mine == ["new.txt", "src/m.py"]  # README's blob is read from the original
        assert git(pw.path, "show", "HEAD:README") == "hi\n"
        assert git(pw.path, "status", "--porcelain") == ""


def test_what_git_writes_in_a_copy_stays_out_of_the_original(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    before = _loose_objects(repo / ".git")
    with prepare_workspace(Workspace(path="repo", isolation="copy"), base_dir=tmp_path) as pw:
        (pw.path / "agent.txt").write_text("written in the copy\n")
        git(pw.path, "add", "agent.txt")
        git(pw.path, "commit", "-qm", "agent")
        oid = git(pw.path, "rev-parse", "HEAD:agent.txt").strip()
        assert oid in _loose_objects(pw.path / ".git")
    assert _loose_objects(repo / ".git") == before
    assert git(repo, "status", "--porcelain") == ""


def test_worktrees_made_and_removed_from_several_threads_at_once_all_work(tmp_path: Path) -> None:
    """A batch's tasks make and remove their worktrees in worker threads, at the same time."""
    repo = make_repo(tmp_path / "repo")

    def cycle(_: int) -> str:
        made = [prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=tmp_path)
                for _ in range(3)]  # fmt: skip
        texts = [(pw.path / "src" / "m.py").read_text() for pw in made]
        for pw in made:
            pw.cleanup()
        return "".join(texts)

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(cycle, range(6))) == ["x = 1\n" * 3] * 6
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_worktrees_files_are_checked_out_after_the_repository_lock_is_released(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock on the repository's worktrees (other agentci processes, a batch's other tasks)
    is held while git registers the worktree, not while it writes the worktree's files: a
    ``git`` on PATH (a stub that runs the real one) records, for the command that checks the
    files out, whether it could take that lock itself."""
    repo = make_repo(tmp_path / "repo")
    log, stub = tmp_path / "lock.log", tmp_path / "bin"
    stub.mkdir()
    (stub / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = reset ] && break; done\n'
        f'if [ "$a" = reset ]; then flock -n -x {repo / ".git"} true && echo free >> {log} '
        f"|| echo held >> {log}; fi\n"
        f'exec {shutil.which("git")} "$@"\n'
    )
    (stub / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub}:{os.environ['PATH']}")
    with prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=tmp_path) as pw:
        assert log.read_text() == "free\n"
        assert (pw.path / "src" / "m.py").read_text() == "x = 1\n"
        assert git(pw.path, "status", "--porcelain") == ""  # index and files are HEAD's


def _failing_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failures: int, error: str
) -> Path:
    """A ``git`` on PATH that answers the first ``failures`` calls of ``worktree add`` with
    ``error`` (exit 128) and runs the real git otherwise; each add is logged."""
    log, stub = tmp_path / "adds.log", tmp_path / "bin"
    stub.mkdir()
    (stub / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = add ] && break; done\n'
        f'if [ "$a" = add ]; then echo add >> {log}; '
        f'if [ "$(wc -l < {log})" -le {failures} ]; then echo "{error}" >&2; exit 128; fi; fi\n'
        f'exec {shutil.which("git")} "$@"\n'
    )
    (stub / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub}:{os.environ['PATH']}")
    return log


def _gone(repo: Path) -> str:
    """What git 2.39 says when another process's ``git worktree remove`` deleted the empty
    ``worktrees`` folder between git making it and making the new entry in it."""
    folder = repo / ".git" / "worktrees" / "repo"
    return f"fatal: could not create directory of '{folder}': No such file or directory"


def test_a_worktree_add_that_lost_a_race_with_another_process_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    log = _failing_adds(tmp_path, monkeypatch, 2, _gone(repo))
    with prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=tmp_path) as pw:
        assert (pw.path / "src" / "m.py").read_text() == "x = 1\n"
    assert log.read_text() == "add\n" * 3
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_race_lost_every_time_ends_after_three_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    log = _failing_adds(tmp_path, monkeypatch, 100, _gone(repo))
    with pytest.raises(InvalidInput, match="could not create directory of"):
        prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=tmp_path)
    assert log.read_text() == "add\n" * 3


def test_a_real_worktree_add_failure_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path / "repo")
    log = _failing_adds(tmp_path, monkeypatch, 100, "fatal: invalid reference: HEAD")
    with pytest.raises(InvalidInput, match="invalid reference"):
        prepare_workspace(Workspace(path="repo", isolation="worktree"), base_dir=tmp_path)
    assert log.read_text() == "add\n"
