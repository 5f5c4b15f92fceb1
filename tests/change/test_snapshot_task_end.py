"""The cheap task end: the private index is a split index (a snapshot writes only what changed
since the baseline), the private ``HEAD`` commit is written without a git process, and the patch
reuses the object ids the change read with its file list. Each gives exactly what the slower
way gave: the same commit, the same files, the same patch, byte for byte.

Real repositories; every kind of change an agent makes (changed, added in a new folder, deleted,
renamed, mode changed, binary, an ignored file written, a file changed back to its original).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agentci.change.change import change_of, patch_text
from agentci.change.patch import capture_baseline, current_change
from agentci.change.snapshot import take
from agentci.change.walk import AUTHOR
from agentci.testing.repo import commit_repo, git

FILES = {
    ".gitignore": "build/\n",
    "pkg/a.py": "A = 1\n",
    "pkg/same.py": "SAME = 1\n",
    "pkg/gone.txt": "delete me\n",
    "pkg/old_name.txt": "moved\n",
    "pkg/run.sh": "#!/bin/sh\necho hi\n",
    "pkg/lib/b.py": "B = 1\n",
    "top.txt": "outside the workspace folder\n",
    **{f"pkg/more/m{i}.py": f"M = {i}\n" for i in range(40)},
}


def _repo(tmp_path: Path) -> Path:
    ws = commit_repo(tmp_path / "repo", FILES)
    (ws / "pkg" / "img.bin").write_bytes(bytes(range(256)) * 4)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "binary")
    return ws


def _act(pkg: Path) -> None:
    """Every kind of change, in the workspace folder ``pkg``."""
    (pkg / "a.py").write_text("A = 2\n")
    (pkg / "new" / "deep").mkdir(parents=True)
    (pkg / "new" / "deep" / "n.py").write_text("N = 1\n")
    (pkg / "gone.txt").unlink()
    (pkg / "old_name.txt").rename(pkg / "new_name.txt")
    (pkg / "run.sh").chmod(0o755)
    (pkg / "img.bin").write_bytes(bytes(reversed(range(256))) * 4)
    (pkg / "same.py").write_text("SAME = 2\n")
    (pkg.parent / "build").mkdir()
    (pkg.parent / "build" / "out.o").write_text("ignored\n")


def _shared(git_dir: Path) -> list[str]:
    return sorted(p.name for p in git_dir.glob("sharedindex.*"))


EXPECTED = ["a.py", "gone.txt", "img.bin", "new/deep/n.py", "new_name.txt", "old_name.txt",
            "run.sh", "same.py"]  # fmt: skip


def test_the_change_holds_every_kind_of_change_of_a_workspace_folder(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    base = capture_baseline(ws / "pkg")
    _act(ws / "pkg")
    assert current_change(base).files == EXPECTED
    base.cleanup()


def test_the_patch_from_the_changes_own_ids_is_the_patch_a_tree_diff_gives(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    base = capture_baseline(ws / "pkg")
    _act(ws / "pkg")
    change = current_change(base)
    without = dataclasses.replace(change, blobs={})  # the patch diffs the trees itself
    assert sorted(change.blobs) == [f"pkg/{f}" for f in EXPECTED]
    assert patch_text(base, change) == patch_text(base, without)
    assert patch_text(base, change, max_file=30) == patch_text(base, without, max_file=30)
    base.cleanup()


def test_the_private_head_is_the_commit_git_commit_tree_makes(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    base = capture_baseline(ws)
    _act(ws / "pkg")
    snap = take(base)
    name, email, date = AUTHOR
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": date,
    }
    made = base.git.out(["commit-tree", snap.raw, "-m", "agentci snapshot"], env=env)
    assert (base.git_dir / "HEAD").read_bytes() == made
    assert base.git.out(["rev-parse", "HEAD^{tree}"]).decode().strip() == snap.raw
    base.cleanup()


def test_snapshots_after_the_baseline_keep_its_shared_index(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    base = capture_baseline(ws / "pkg")
    shared = _shared(base.git_dir)
    _act(ws / "pkg")
    assert change_of(base, take(base)).files == EXPECTED
    (ws / "pkg" / "same.py").write_text("SAME = 1\n")  # changed back to its original
    assert change_of(base, take(base)).files == [f for f in EXPECTED if f != "same.py"]
    assert _shared(base.git_dir) == shared and len(shared) == 1
    base.cleanup()


def test_a_workspace_put_back_as_it_was_has_the_baselines_tree(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    base = capture_baseline(ws / "pkg")
    _act(ws / "pkg")
    take(base)
    git(ws, "checkout", "-q", "--", ".")
    git(ws, "clean", "-q", "-fd", "pkg")
    (ws / "pkg" / "run.sh").chmod(0o644)
    snap = take(base)
    assert snap.tree == base.tree
    assert change_of(base, snap).files == []
    base.cleanup()


def test_many_new_files_write_one_new_shared_index(tmp_path: Path) -> None:
    ws = commit_repo(tmp_path / "repo", {f"f{i}.txt": f"{i}\n" for i in range(10)})
    base = capture_baseline(ws)
    first = _shared(base.git_dir)
    for i in range(10, 18):  # 8 new entries of 18: more than a split index keeps apart (20%)
        (ws / f"f{i}.txt").write_text(f"{i}\n")
    (ws / "f0.txt").write_text("0 changed\n")
    change = current_change(base)
    assert change.files == sorted(f"f{i}.txt" for i in (0, *range(10, 18)))
    now = _shared(base.git_dir)
    assert len(now) == 1 and now != first  # the old one is deleted
    (ws / "f0.txt").write_text("0\n")
    assert current_change(base).files == sorted(f"f{i}.txt" for i in range(10, 18))
    base.cleanup()
