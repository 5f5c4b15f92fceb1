"""glob and grep_search respect .gitignore and cap their hits."""

from __future__ import annotations

from pathlib import Path

from tool_harness import Harness, init_repo


def _with_ignored(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "build").mkdir()
    (ws / "build/gen.py").write_text("def add(): pass\n")
    (ws / "debug.log").write_text("add\n")
    (ws / "src/new.py").write_text("def add2(): pass\n")  # untracked, not ignored


def test_glob_respects_gitignore(h: Harness, ws: Path) -> None:
    _with_ignored(ws)
    out = h.call("glob", pattern="**/*.py").output.splitlines()
    assert sorted(out) == ["src/app.py", "src/new.py"]
    assert h.call("glob", pattern="*.log").output.startswith("No files")
    assert h.call("glob", pattern="*.py", dir_path="src").output.splitlines() == [
        "src/app.py",
        "src/new.py",
    ]


def test_grep_respects_gitignore_and_include(h: Harness, ws: Path) -> None:
    _with_ignored(ws)
    out = h.call("grep_search", pattern=r"def add").output
    assert "src/app.py:1: def add(a, b):" in out and "src/new.py:1:" in out
    assert "build/" not in out and "debug.log" not in out
    only = h.call("grep_search", pattern="install", include_pattern="*.md").output
    assert only == "README.md:1: install with pip"


def test_grep_caps_hits_and_reports_bad_regex(h: Harness, ws: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 1000)
    out = h.call("grep_search", pattern="hit").output
    assert out.count("many.txt:") == 200 and "800 more matches" in out
    assert "invalid regular expression" in (h.call("grep_search", pattern="(").error or "")


def test_search_outside_git(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "a").mkdir(parents=True)
    (plain / "a/x.txt").write_text("needle\n")
    h = Harness(ws=plain.resolve())
    assert h.call("glob", pattern="**/*.txt").output == "a/x.txt"
    assert h.call("grep_search", pattern="needle").output == "a/x.txt:1: needle"


def test_search_dir_outside_is_refused(h: Harness) -> None:
    assert "outside" in (h.call("grep_search", pattern="x", dir_path="..").error or "")
    assert "outside" in (h.call("glob", pattern="*", dir_path="/etc").error or "")


def test_glob_in_a_nested_repo(tmp_path: Path) -> None:
    ws = init_repo(tmp_path / "r", {"a/b/c.txt": "x"})
    assert Harness(ws=ws).call("glob", pattern="a/**/*.txt").output == "a/b/c.txt"
