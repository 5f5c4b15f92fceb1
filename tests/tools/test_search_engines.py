"""glob and grep_search with each engine (ripgrep and the RE2 walk), on real repos:
linear-time matching, special files never opened, nothing skipped silently, agentci's
output folder left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_harness import Harness, init_repo

from agentci.testing.processes import pids_with
from agentci.tools.rg import Ripgrep
from agentci.tools.rg_find import find_rg
from agentci.tools.walk import MAX_FILE_BYTES, Re2Walk


def _ripgrep() -> Ripgrep:
    found = find_rg()
    assert found is not None, "the ripgrep package installs rg next to the interpreter"
    return Ripgrep(*found)


ENGINES = {"ripgrep": _ripgrep, "re2": Re2Walk}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A committed git repo holding only a README."""
    return init_repo(tmp_path / "repo", {"README.md": "# project\n"})


@pytest.fixture(params=sorted(ENGINES))
def hs(request: pytest.FixtureRequest, ws: Path) -> Harness:
    """A harness on ``ws`` using one engine."""
    return Harness(ws=ws, search=ENGINES[request.param]())


def test_ripgrep_is_found_next_to_the_interpreter() -> None:
    path, version = find_rg() or ("", "")
    assert version.startswith("ripgrep 14.")
    assert Path(path).parent == Path(os.sys.executable).parent


@pytest.mark.parametrize("pattern", [r"(a*)*b", r"(a+)+$", r"(x+x+)+y", r"(.*a){20}"])
def test_catastrophic_regexes_finish(hs: Harness, ws: Path, pattern: str) -> None:
    (ws / "long.txt").write_text("a" * 50_000 + "\n" + "x" * 5_000 + "\n")
    res = hs.call("grep_search", pattern=pattern)
    assert res.error is None, res.error
    assert res.output in (f"No matches for {pattern!r}.", "long.txt:1: " + "a" * 500)


def test_catastrophic_globs_finish(hs: Harness, ws: Path) -> None:
    (ws / ("a" * 250)).write_text("x\n")
    for pattern in ["*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*a*a*a*b"]:
        assert hs.call("glob", pattern=pattern).output == f"No files match {pattern!r}."
        res = hs.call("grep_search", pattern="x", include_pattern=pattern)
        assert res.output == "No matches for 'x'."
    assert hs.call("glob", pattern="*a*a*a*a*a*a*a*a*a*a").output == "a" * 250


def test_a_catastrophic_gitignore_pattern_is_harmless(hs: Harness, ws: Path) -> None:
    (ws / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*b\n")
    (ws / ("a" * 250)).write_text("needle\n")
    assert hs.call("grep_search", pattern="needle").output == f"{'a' * 250}:1: needle"


def test_fifos_and_sockets_are_not_opened(hs: Harness, ws: Path) -> None:
    import socket

    os.mkfifo(ws / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(ws / "sock"))
    (ws / "notes.txt").write_text("needle\n")
    try:
        assert hs.call("grep_search", pattern="needle").output == "notes.txt:1: needle"
        assert hs.call("grep_search", pattern="needle", include_pattern="*").output == (
            "notes.txt:1: needle"
        )
        assert "pipe" not in hs.call("glob", pattern="*").output
    finally:
        sock.close()


def test_a_file_over_two_megabytes_is_searched(hs: Harness, ws: Path) -> None:
    (ws / "big.txt").write_text("filler line\n" * 300_000 + "needle\n")  # 3.6 MB
    assert hs.call("grep_search", pattern="needle").output == "big.txt:300001: needle"


def test_the_fallback_names_the_files_it_did_not_search(ws: Path) -> None:
    with open(ws / "huge.txt", "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    (ws / "small.txt").write_text("other\n")
    out = Harness(ws=ws, search=Re2Walk()).call("grep_search", pattern="needle").output
    assert out.splitlines() == [
        "No matches for 'needle'.",
        f"[not searched: huge.txt ({MAX_FILE_BYTES + 1} bytes, over the 16 MB limit of this "
        "engine)]",
    ]


def test_binary_files_that_match_are_named(hs: Harness, ws: Path) -> None:
    (ws / "blob.bin").write_bytes(b"\x00\x01needle\x00")
    (ws / "other.bin").write_bytes(b"\x00\x01nothing\x00")
    assert hs.call("grep_search", pattern="needle").output.splitlines() == [
        "No matches for 'needle'.",
        "[binary files that match, not shown: blob.bin]",
    ]


def test_hits_are_sorted_capped_and_counted(hs: Harness, ws: Path) -> None:
    for i in range(30):
        (ws / f"f{i:02}.txt").write_text("hit\n" * 10)
    out = hs.call("grep_search", pattern="hit").output.splitlines()
    assert out[0] == "f00.txt:1: hit" and out[199] == "f19.txt:10: hit"
    assert out[200:] == ["[truncated: 100 more matches; narrow the pattern or directory]"]


def test_non_utf8_lines_and_long_lines(hs: Harness, ws: Path) -> None:
    (ws / "latin.txt").write_bytes(b"caf\xe9 needle\n")
    (ws / "wide.txt").write_text("needle" + "x" * 5000 + "\n")
    out = hs.call("grep_search", pattern="needle").output.splitlines()
    assert out[0] == "latin.txt:1: caf\ufffd needle"
    assert out[1].startswith("wide.txt:1: needlexxx") and len(out[1]) < 600


def test_gitignore_rules_nested_and_negated(hs: Harness, ws: Path) -> None:
    (ws / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    (ws / "src").mkdir()
    (ws / "src/.gitignore").write_text("gen_*.py\n")
    for name in ["a.log", "keep.log", "build/x.py", "src/gen_a.py", "src/ok.py"]:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("needle\n")
    assert hs.call("glob", pattern="**/*").output.splitlines() == [
        ".gitignore",
        "README.md",
        "keep.log",
        "src/.gitignore",
        "src/ok.py",
    ]
    assert hs.call("grep_search", pattern="needle", dir_path="src").output == "src/ok.py:1: needle"


def test_symlinks_are_not_followed(hs: Harness, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("needle s3cret\n")
    (ws / "link-dir").symlink_to(outside)
    (ws / "link-file.txt").symlink_to(outside / "secret.txt")
    assert "s3cret" not in hs.call("grep_search", pattern="needle").output
    assert hs.call("glob", pattern="link-dir/*").output.startswith("No files")
    assert "s3cret" not in hs.call("grep_search", pattern="needle", include_pattern="*.txt").output


def test_the_re2_walk_reads_no_gitignore_that_is_a_fifo_or_a_link(ws: Path, tmp_path: Path):
    """As git (2.32 and later) reads the work tree's ignore files: a FIFO ``.gitignore`` is
    not opened (the walk used to wait on it for ever), a link is not followed (it pointed at a
    host file whose pattern hid a.txt). ripgrep, the default engine, opens both as files."""
    host = tmp_path / "host-ignore"
    host.write_text("a.txt\n")
    (ws / "a.txt").write_text("x\n")
    (ws / ".gitignore").symlink_to(host)
    (ws / "sub").mkdir()
    os.mkfifo(ws / "sub" / ".gitignore")
    (ws / "sub" / "b.txt").write_text("x\n")
    hs = Harness(ws=ws, search=Re2Walk())
    assert hs.call("glob", pattern="**/*.txt").output == "a.txt\nsub/b.txt"


def test_brace_alternatives_and_include_patterns(hs: Harness, ws: Path) -> None:
    for name in ["web/a.ts", "web/b.tsx", "web/c.js", "web/deep/d.ts"]:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("needle\n")
    assert hs.call("glob", pattern="*.{ts,tsx}").output.splitlines() == [
        "web/a.ts",
        "web/b.tsx",
        "web/deep/d.ts",
    ]
    assert hs.call("glob", pattern="web/*.ts").output == "web/a.ts"
    out = hs.call("grep_search", pattern="needle", include_pattern="web/**/*.ts").output
    assert out.splitlines() == ["web/a.ts:1: needle", "web/deep/d.ts:1: needle"]
    out = hs.call("grep_search", pattern="needle", dir_path="web", include_pattern="*.js").output
    assert out == "web/c.js:1: needle"


def test_regex_syntax_errors_are_reported(hs: Harness) -> None:
    for pattern in ["(", r"(?<=a)b", r"(a)\1"]:
        res = hs.call("grep_search", pattern=pattern)
        assert res.error and res.error.startswith("invalid regular expression"), pattern


def test_agentci_folders_are_not_listed_or_searched(ws: Path, request: pytest.FixtureRequest):
    for name in [".agentci/out/events.jsonl", "ci-out/result.json", "src/needle.py"]:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("needle\n")
    for engine in ENGINES.values():
        h = Harness(ws=ws, search=engine(), private_dirs=(".agentci", "ci-out"))
        assert h.call("glob", pattern="**/*").output.splitlines() == [
            "README.md",
            "src/needle.py",
        ]
        assert h.call("grep_search", pattern="needle").output == "src/needle.py:1: needle"
        listing = h.call("list_directory", dir_path=".").output.splitlines()
        assert listing == ["src/", "README.md"]
        assert "output folder" in (
            h.call("grep_search", pattern="x", dir_path="ci-out").error or ""
        )


def test_nested_repo_gitignore_stops_at_the_workspace_root(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*\n")  # above the workspace: not its rules
    ws = init_repo(tmp_path / "r", {"a/b.txt": "needle\n"})
    for engine in ENGINES.values():
        h = Harness(ws=ws, search=engine())
        assert h.call("grep_search", pattern="needle").output == "a/b.txt:1: needle"


def test_a_grep_longer_than_the_tool_timeout_is_ended(ws: Path) -> None:
    with open(ws / "disk.img", "wb") as fh:
        fh.truncate(1 << 40)  # 1 TiB of holes: minutes of reading
    marker = f"needle{os.getpid()}x{os.urandom(4).hex()}"
    h = Harness(ws=ws, search=_ripgrep(), timeout=1)
    res = h.call("grep_search", pattern=marker)
    assert res.error == "timed out after 1s"
    assert pids_with(marker) == []  # the search process was killed, not left running


@pytest.mark.parametrize(
    ("pattern", "dir_path", "found"),
    [
        ("*.py", None, ["a.py", "lib/b.py", "lib/test_1.py", "lib/x.py/c.py", "test_22.py"]),
        ("**/*.py", "lib", ["lib/b.py", "lib/test_1.py", "lib/x.py/c.py"]),
        ("test_?.{py,txt}", None, ["lib/test_1.py", "test_2.txt"]),
        ("*.[p]y", None, ["a.py", "lib/b.py", "lib/test_1.py", "lib/x.py/c.py", "test_22.py"]),
    ],
)
def test_a_name_glob_matches_file_names_at_any_depth(
    hs: Harness, ws: Path, pattern: str, dir_path: str | None, found: list[str]
) -> None:
    """A file inside a folder whose name matches is listed only when its own name does."""
    for rel in ["a.py", "lib/b.py", "lib/x.py/c.py", "lib/x.py/d.txt", "lib/test_1.py",
                "test_2.txt", "test_22.py", "lib/notes.md"]:  # fmt: skip
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("x\n")
    args = {"pattern": pattern, **({"dir_path": dir_path} if dir_path else {})}
    res = hs.call("glob", **args)
    assert res.error is None, res.error
    assert res.output.splitlines() == found
