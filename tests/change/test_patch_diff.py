"""patch.py on real temp git repos: the patch reproduces the agent's change byte for byte."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from agentci.change.patch import capture_baseline, changed_files, changed_lines, diff_since
from agentci.errors import InvalidInput
from agentci.testing.repo import git


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    (root / "gone.txt").write_text("delete me\n")
    (root / "script.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "crlf.txt").write_bytes(b"line1\r\nline2\r\n")
    (root / "img.bin").write_bytes(bytes(range(256)) * 4)
    (root / ".gitignore").write_text("ignored/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, bool]]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith((".git/", ".agentci")) or rel == ".git" or not p.is_file():
            continue
        out[rel] = (p.read_bytes(), bool(p.stat().st_mode & stat.S_IXUSR))
    return out


def apply_on_copy(before: Path, patch: str, dest: Path) -> Path:
    shutil.copytree(before, dest, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    pfile = dest.parent / (dest.name + ".diff")
    pfile.write_bytes(patch.encode("utf-8", "surrogateescape"))
    git(dest, "apply", "--check", str(pfile))
    git(dest, "apply", str(pfile))
    return dest


def agent_changes(ws: Path) -> None:
    (ws / "a.txt").write_text("one\nTWO\nthree\n")
    (ws / "gone.txt").unlink()
    (ws / "new.txt").write_text("no trailing newline")
    (ws / "crlf.txt").write_bytes(b"line1\r\nchanged\r\n")
    (ws / "img.bin").write_bytes(bytes(reversed(range(256))) * 4)
    (ws / "new.bin").write_bytes(b"\x00\x01\xff\xfe" * 100)
    (ws / "script.sh").chmod(0o755)
    (ws / "sub").mkdir()
    (ws / "sub" / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (ws / "ignored").mkdir()
    (ws / "ignored" / "junk.txt").write_text("not in the patch\n")
    (ws / ".agentci" / "out").mkdir(parents=True)
    (ws / ".agentci" / "out" / "events.jsonl").write_text("{}\n")


def test_patch_reproduces_every_kind_of_change(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    # uncommitted and untracked state before the agent is part of the baseline
    (ws / "a.txt").write_text("one\ntwo\nthree\nuncommitted\n")
    (ws / "untracked.txt").write_text("user's scratch\n")
    before = tmp_path / "before"
    shutil.copytree(ws, before, symlinks=True)

    head = git(ws, "rev-parse", "HEAD")
    status_before = git(ws, "status", "--porcelain")
    base = capture_baseline(ws)
    agent_changes(ws)
    patch = diff_since(base)

    assert "GIT binary patch" in patch
    assert "new file mode 100644" in patch
    assert "deleted file mode" in patch
    assert "old mode 100644\nnew mode 100755" in patch
    assert "\\ No newline at end of file" in patch
    assert "ignored/junk.txt" not in patch and ".agentci" not in patch
    assert "untracked.txt" not in patch  # existed before the agent: not its change

    applied = apply_on_copy(before, patch, tmp_path / "fresh")
    expected = {k: v for k, v in snapshot(ws).items() if not k.startswith("ignored/")}
    got = {k: v for k, v in snapshot(applied).items() if not k.startswith("ignored/")}
    assert got == expected

    # the user's repository is untouched
    assert git(ws, "rev-parse", "HEAD") == head
    assert git(ws, "stash", "list") == ""
    assert status_before != git(ws, "status", "--porcelain")  # only the agent's edits differ
    assert "untracked.txt" not in git(ws, "diff", "--cached", "--name-only")

    files = changed_files(base)
    assert files == sorted(
        [
            "a.txt",
            "crlf.txt",
            "gone.txt",
            "img.bin",
            "new.bin",
            "new.txt",
            "script.sh",
            "sub/latin1.txt",
        ]
    )
    assert changed_lines(base) >= 6
    base.cleanup()
    assert not base.git_dir.exists()


def test_no_changes_gives_empty_patch(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    base = capture_baseline(ws)
    (ws / ".agentci").mkdir()
    (ws / ".agentci" / "x").write_text("x")
    assert diff_since(base) == ""
    assert changed_files(base) == []
    assert changed_lines(base) == 0


def test_non_git_folder_is_not_initialised(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "f.txt").write_text("hello\n")
    (ws / ".gitignore").write_text("*.log\n")
    before = tmp_path / "before"
    shutil.copytree(ws, before)
    base = capture_baseline(ws)
    (ws / "f.txt").write_text("hello world\n")
    (ws / "g.txt").write_text("new\n")
    (ws / "x.log").write_text("ignored\n")
    patch = diff_since(base)
    assert not (ws / ".git").exists()
    assert changed_files(base) == ["f.txt", "g.txt"]
    applied = apply_on_copy(before, patch, tmp_path / "fresh")
    assert (applied / "f.txt").read_text() == "hello world\n"
    assert (applied / "g.txt").read_text() == "new\n"


def test_subdirectory_workspace_paths_are_relative(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "m.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pkg")
    base = capture_baseline(sub)
    (sub / "m.py").write_text("x = 2\n")
    (repo / "a.txt").write_text("outside the workspace\n")
    patch = diff_since(base)
    assert "a/m.py" in patch and "a.txt" not in patch
    assert changed_files(base) == ["m.py"]


def test_inherited_git_env_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = make_repo(tmp_path / "ws")
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "bogus-index"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    base = capture_baseline(ws)
    (ws / "a.txt").write_text("changed\n")
    assert changed_files(base) == ["a.txt"]
    assert not (tmp_path / "bogus-index").exists()


def test_gc_in_user_repo_does_not_break_baseline(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    (ws / "a.txt").write_text("uncommitted before agent\n")
    base = capture_baseline(ws)
    git(ws, "gc", "-q", "--prune=now")
    (ws / "a.txt").write_text("agent\n")
    assert "-uncommitted before agent" in diff_since(base)


def test_missing_workspace(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="nope"):
        capture_baseline(tmp_path / "nope")


def test_workspace_in_ignored_subfolder(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    ws = repo / "ignored" / "ws"
    ws.mkdir(parents=True)
    (ws / "f.txt").write_text("a\n")
    base = capture_baseline(ws)
    (ws / "f.txt").write_text("b\n")
    assert changed_files(base) == ["f.txt"]
    assert "+b" in diff_since(base)
