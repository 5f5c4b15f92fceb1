"""The snapshot model: the change is exactly what the agent did, whatever it does to git's view.

Each test builds a real repository, takes the baseline, acts as an agent would, and checks the
change; patches are applied with ``git apply`` to a fresh clone of the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from as_nobody import AS_NOBODY, NOBODY, why_nobody_cannot_run

from agentci.change.change import patch_text
from agentci.change.patch import capture_baseline, changed_files, changed_lines, current_change
from agentci.change.patch import diff_since as patch_of
from agentci.testing.repo import commit_repo, git, git_env

GIT_ENV = git_env()


repo = commit_repo


def apply_to_clone(src: Path, patch: str, dest: Path, *, submodules: bool = False) -> Path:
    """``git clone`` ``src`` to ``dest`` and ``git apply`` the patch there (both must work)."""
    git(src.parent, "clone", "-q", str(src), str(dest))
    if submodules:
        git(dest, "submodule", "update", "-q", "--init")
    (dest.parent / "p.diff").write_text(patch, encoding="utf-8", errors="surrogateescape")
    git(dest, "apply", str(dest.parent / "p.diff"))
    return dest


def test_an_edited_gitignore_does_not_publish_the_users_ignored_files(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {".gitignore": ".env\nbuild/\n", "app.py": "x = 1\n"})
    (ws / ".env").write_text("API_TOKEN=user-secret-value-123\n")
    (ws / "build").mkdir()
    (ws / "build" / "cache.bin").write_text("user build output\n")
    base = capture_baseline(ws)
    (ws / ".gitignore").write_text("# rewritten by the agent\n*.log\n")
    (ws / "app.py").write_text("x = 2\n")
    patch = patch_of(base)
    assert "user-secret-value-123" not in patch
    assert changed_files(base) == [".gitignore", "app.py"]
    clone = apply_to_clone(ws, patch, tmp_path / "clone")
    assert (clone / "app.py").read_text() == "x = 2\n"
    assert not (clone / ".env").exists()


def test_a_file_the_agent_hides_with_a_new_ignore_rule_is_still_in_the_change(
    tmp_path: Path,
) -> None:
    ws = repo(tmp_path / "r", {".gitignore": "*.log\n", "tests/test_a.py": "def test(): ...\n"})
    base = capture_baseline(ws)
    (ws / "tests" / "conftest.py").write_text("import pytest  # makes every test pass\n")
    (ws / ".gitignore").write_text("*.log\ntests/conftest.py\n")
    assert changed_files(base) == [".gitignore", "tests/conftest.py"]
    clone = apply_to_clone(ws, patch_of(base), tmp_path / "clone")
    assert (clone / "tests" / "conftest.py").is_file()


def test_ignored_files_the_agent_writes_are_reported_not_published(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {".gitignore": ".env\nbuild/\n", "app.py": "x = 1\n"})
    (ws / ".env").write_text("A=1\n")
    (ws / "build").mkdir()
    (ws / "build" / "old.o").write_text("old\n")
    base = capture_baseline(ws)
    (ws / "build" / "new.o").write_text("made by the agent\n")
    (ws / ".env").write_text("A=2\n")
    change = current_change(base)
    assert change.files == []
    assert change.ignored_written == [".env", "build/new.o"]


def test_assume_unchanged_and_skip_worktree_bits_do_not_hide_edits(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
    git(ws, "update-index", "--assume-unchanged", "a.txt")
    git(ws, "update-index", "--skip-worktree", "b.txt")
    base = capture_baseline(ws)
    (ws / "a.txt").write_text("A\n")
    (ws / "b.txt").write_text("B\n")
    assert changed_files(base) == ["a.txt", "b.txt"]
    clone = apply_to_clone(ws, patch_of(base), tmp_path / "clone")
    assert (clone / "a.txt").read_text() == "A\n" and (clone / "b.txt").read_text() == "B\n"


def test_edits_inside_a_submodule_are_in_the_patch(tmp_path: Path) -> None:
    lib = repo(tmp_path / "lib", {"lib.py": "VALUE = 1\n"})
    ws = repo(tmp_path / "r", {"app.py": "import lib\n"})
    git(ws, "submodule", "add", "-q", str(lib), "vendor/lib")
    git(ws, "commit", "-q", "-m", "submodule")
    base = capture_baseline(ws)
    (ws / "vendor" / "lib" / "lib.py").write_text("VALUE = 2\n")
    assert changed_files(base) == ["vendor/lib/lib.py"]
    patch = patch_of(base)
    assert "Subproject commit" not in patch
    clone = apply_to_clone(ws, patch, tmp_path / "clone", submodules=True)
    assert (clone / "vendor" / "lib" / "lib.py").read_text() == "VALUE = 2\n"


def test_a_repository_the_agent_creates_is_reported_not_a_gitlink(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {"app.py": "x = 1\n"})
    base = capture_baseline(ws)
    (ws / "app.py").write_text("x = 2\n")
    for name, commit in (("empty", False), ("cloned", True)):
        inner = ws / name
        inner.mkdir()
        (inner / "f.txt").write_text("inner\n")
        git(inner, "init", "-q")
        if commit:
            git(inner, "add", "-A")
            git(inner, "commit", "-q", "-m", "x")
    change = current_change(base)
    assert change.files == ["app.py"]
    assert change.nested_repos == ["cloned", "empty"]
    assert "Subproject" not in patch_text(base, change).text


def test_gitattributes_cannot_turn_the_patch_into_a_binary_blob(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {"app.py": "".join(f"line {i}\n" for i in range(50))})
    base = capture_baseline(ws)
    (ws / ".gitattributes").write_text("*.py -diff\n")
    (ws / "app.py").write_text("".join(f"LINE {i}\n" for i in range(50)))
    patch = patch_of(base)
    assert "+LINE 49" in patch and "GIT binary patch" not in patch
    assert changed_lines(base) == 101  # 50 removed + 50 added + the .gitattributes line


def test_a_file_over_the_size_cap_is_listed_not_inlined(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {"app.py": "x = 1\n"})
    base = capture_baseline(ws)
    (ws / "app.py").write_text("x = 2\n")
    (ws / "big.bin").write_bytes(os.urandom(64 * 1024))
    patch = patch_text(base, current_change(base), max_file=32 * 1024)
    assert patch.omitted == [{"path": "big.bin", "bytes": 64 * 1024}]
    assert "big.bin" not in patch.text
    clone = apply_to_clone(ws, patch.text, tmp_path / "clone")
    assert (clone / "app.py").read_text() == "x = 2\n"


def test_the_largest_files_go_when_the_whole_patch_is_over_the_cap(tmp_path: Path) -> None:
    ws = repo(tmp_path / "r", {"app.py": "x = 1\n"})
    base = capture_baseline(ws)
    for name, size in (("a.bin", 3000), ("b.bin", 2000), ("c.bin", 1000)):
        (ws / name).write_bytes(os.urandom(size))
    patch = patch_text(base, current_change(base), max_total=3500)
    assert [o["path"] for o in patch.omitted] == ["a.bin"]
    assert "b.bin" in patch.text and "c.bin" in patch.text


@pytest.mark.skipif(why_nobody_cannot_run() is not None, reason=str(why_nobody_cannot_run()))
def test_an_unreadable_file_is_reported(tmp_path: Path) -> None:
    """Run as an unprivileged user (root reads everything): a file it cannot read is named."""
    top = Path(tempfile_dir())
    try:
        ws = repo(top / "r", {"app.py": "x = 1\n", "secret.txt": "s\n"})
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(top)], check=True)
        code = (
            "import os, sys; from pathlib import Path\n"
            "from agentci.change.patch import capture_baseline, current_change\n"
            "ws = Path(sys.argv[1]); b = capture_baseline(ws)\n"
            "(ws / 'secret.txt').write_text('changed\\n'); os.chmod(ws / 'secret.txt', 0)\n"
            "(ws / 'app.py').write_text('x = 2\\n')\n"
            "c = current_change(b); print(c.files, c.unreadable)\n"
        )
        done = subprocess.run(
            [*AS_NOBODY, sys.executable, "-c", code, str(ws)],
            capture_output=True, text=True, env={**GIT_ENV, "HOME": str(top)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "['app.py'] ['secret.txt']"
    finally:
        shutil.rmtree(top, ignore_errors=True)


def tempfile_dir() -> str:
    import tempfile

    path = tempfile.mkdtemp(prefix="snapshot-test-")
    os.chmod(path, 0o755)
    return path
