"""read_file, list_directory, write_file and replace on real temporary git repos."""

from __future__ import annotations

import os
from pathlib import Path

from tool_harness import Harness


def test_read_file_whole_and_range(h: Harness) -> None:
    assert (
        h.call("read_file", file_path="src/app.py").output == "def add(a, b):\n    return a - b\n"
    )
    part = h.call("read_file", file_path="src/app.py", start_line=2, end_line=2)
    assert "return a - b" in part.output and "def add" not in part.output
    assert "showing lines 2-2 of 2" in part.output


def test_read_file_caps_lines_and_marks_truncation(h: Harness, ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(5000)))
    out = h.call("read_file", file_path="big.txt").output
    assert "[truncated: showing lines 1-2000 of 5000" in out
    assert "line 1999\n" in out and "line 2000\n" not in out


def test_read_file_binary_and_missing(h: Harness, ws: Path) -> None:
    (ws / "b.bin").write_bytes(b"\x00\x01\x02" * 10)
    assert "binary file" in h.call("read_file", file_path="b.bin").output
    assert "not found" in (h.call("read_file", file_path="nope.txt").error or "")


def test_paths_outside_are_refused(h: Harness, ws: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "repo-other"  # shares the workspace's name as a prefix
    sibling.mkdir()
    (sibling / "secret").write_text("s3cret")
    (ws / "link").symlink_to(sibling / "secret")
    for p in ["../repo-other/secret", str(sibling / "secret"), "link", "/etc/passwd"]:
        res = h.call("read_file", file_path=p)
        assert res.error and "outside the workspace" in res.error, p
        assert "s3cret" not in res.output


def test_absolute_path_inside_workspace_is_fine(h: Harness, ws: Path) -> None:
    assert "install" in h.call("read_file", file_path=str(ws / "README.md")).output


def test_list_directory(h: Harness, ws: Path) -> None:
    out = h.call("list_directory", dir_path=".").output.splitlines()
    assert out[0] == "src/" and "README.md" in out and ".git/" not in out
    assert "README.md" not in h.call("list_directory", dir_path=".", ignore=["*.md"]).output


def test_write_file_creates_dirs_atomically_and_keeps_mode(h: Harness, ws: Path) -> None:
    res = h.call("write_file", file_path="new/dir/x.py", content="print(1)\n")
    assert res.error is None and (ws / "new/dir/x.py").read_text() == "print(1)\n"
    script = ws / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    h.call("write_file", file_path="run.sh", content="#!/bin/sh\necho hi\n")
    assert os.stat(script).st_mode & 0o777 == 0o755
    assert not [p for p in ws.rglob(".agentci-tmp-*")]


def test_replace_unique_missing_and_ambiguous(h: Harness, ws: Path) -> None:
    ok = h.call("replace", file_path="src/app.py", old_string="a - b", new_string="a + b")
    assert ok.error is None and "a + b" in (ws / "src/app.py").read_text()
    missing = h.call("replace", file_path="src/app.py", old_string="nothing", new_string="x")
    assert "not found" in (missing.error or "")
    (ws / "dup.txt").write_text("x = 1\nx = 1\n")
    amb = h.call("replace", file_path="dup.txt", old_string="x = 1", new_string="x = 2")
    assert "occurs 2 times" in (amb.error or "")
    assert (ws / "dup.txt").read_text() == "x = 1\nx = 1\n"
    many = h.call(
        "replace", file_path="dup.txt", old_string="x = 1", new_string="x = 2", allow_multiple=True
    )
    assert many.error is None and (ws / "dup.txt").read_text() == "x = 2\nx = 2\n"


def test_replace_keeps_crlf(h: Harness, ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    res = h.call("replace", file_path="win.txt", old_string="one\ntwo", new_string="1\n2")
    assert res.error is None
    assert (ws / "win.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_replace_empty_old_string_creates_a_file(h: Harness, ws: Path) -> None:
    assert h.call("replace", file_path="n.txt", old_string="", new_string="hi").error is None
    assert (ws / "n.txt").read_text() == "hi"
    assert "file exists" in (
        h.call("replace", file_path="n.txt", old_string="", new_string="x").error or ""
    )


def test_tools_refuse_protected_paths_themselves(ws: Path) -> None:
    """Even called without the policy, write_file will not touch .git/."""
    import asyncio

    import pytest

    from agentci.errors import ToolFailure
    from agentci.tools.base import ToolContext
    from agentci.tools.files import WriteFile

    tool = WriteFile()
    before = (ws / ".git/config").read_text()
    with pytest.raises(ToolFailure, match="protected"):
        asyncio.run(tool.run(tool.Args(file_path=".git/config", content="x"), ToolContext(ws)))
    assert (ws / ".git/config").read_text() == before


LATIN1 = b"# menu\nprice = 3\nname = 'caf\xe9'\n"


def test_read_file_says_when_bytes_are_not_utf8(h: Harness, ws: Path) -> None:
    (ws / "menu.py").write_bytes(LATIN1)
    out = h.call("read_file", file_path="menu.py").output
    first, rest = out.split("\n", 1)
    assert first.startswith("[not UTF-8: bytes that are not valid UTF-8 (the first on line 3)")
    assert rest == "# menu\nprice = 3\nname = 'caf\ufffd'\n"
    assert h.call("read_file", file_path="src/app.py").output.startswith("def add")


def test_write_file_refuses_to_destroy_bytes_it_could_not_decode(h: Harness, ws: Path) -> None:
    (ws / "menu.py").write_bytes(LATIN1)
    shown = h.call("read_file", file_path="menu.py").output.split("\n", 1)[1]
    res = h.call("write_file", file_path="menu.py", content=shown.replace("3", "4"))
    assert res.error and "not UTF-8" in res.error
    assert (ws / "menu.py").read_bytes() == LATIN1


def test_write_file_keeps_u_fffd_where_nothing_is_lost(h: Harness, ws: Path) -> None:
    text = "replacement char: \ufffd\n"
    (ws / "utf8.txt").write_text("old\n")
    for name in ("utf8.txt", "new.txt"):
        assert h.call("write_file", file_path=name, content=text).error is None
        assert (ws / name).read_text() == text


def test_replace_in_a_file_that_is_not_utf8_keeps_its_bytes(h: Harness, ws: Path) -> None:
    (ws / "menu.py").write_bytes(LATIN1)
    res = h.call("replace", file_path="menu.py", old_string="price = 3", new_string="price = 4")
    assert res.error is None, res.error
    assert (ws / "menu.py").read_bytes() == LATIN1.replace(b"price = 3", b"price = 4")
    res = h.call("replace", file_path="menu.py", old_string="caf\ufffd", new_string="cafe")
    assert res.error and "U+FFFD" in res.error
    assert (ws / "menu.py").read_bytes() == LATIN1.replace(b"price = 3", b"price = 4")


def test_a_write_cancelled_midway_leaves_no_temporary_file_behind(ws: Path) -> None:
    """A task cancelled (wall clock, SIGTERM) while write_file's worker thread is writing
    waits for that write to end, so the final snapshot never finds its temporary file."""
    import asyncio
    import contextlib

    from agentci.tools.base import ToolContext
    from agentci.tools.files import WriteFile

    ctx = ToolContext(workspace=ws, env={}, timeout_seconds=20)
    tool = WriteFile()
    content = "x" * (64 << 20)  # big enough that the write is still going when cancelled

    async def go() -> list[str]:
        task = asyncio.create_task(tool.run(tool.Args(file_path="big.txt", content=content), ctx))
        while not any(p.name.startswith(".agentci-tmp-") for p in ws.iterdir()):
            await asyncio.sleep(0.001)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return sorted(p.name for p in ws.iterdir() if p.name.startswith(".agentci-tmp-"))

    assert asyncio.run(go()) == []
    assert (ws / "big.txt").stat().st_size == len(content)  # the write ended; it is the truth
