"""A name that is not UTF-8 (bytes a Latin-1 tool wrote) reaches the model as valid UTF-8:
U+FFFD in its place and a note on how to act on that file (agentci.tools.not_utf8)."""

from __future__ import annotations

from pathlib import Path

from tool_harness import Harness

from agentci.tools.not_utf8 import NOTE


def test_list_directory_shows_a_name_not_utf8_as_u_fffd_with_a_note(h: Harness, ws: Path):
    (ws / "caf\udce9.txt").write_bytes(b"notes\n")
    res = h.call("list_directory", dir_path=".")
    assert res.error is None
    assert res.output.split("\n\n") == ["src/\nREADME.md\ncaf\ufffd.txt", NOTE]
    res.output.encode("utf-8")  # what the model API takes


def test_the_shell_can_act_on_the_file_the_note_describes(h: Harness, ws: Path):
    (ws / "caf\udce9.txt").write_bytes(b"notes\n")
    res = h.sh("mv caf?.txt cafe.txt")
    assert (res.error, (ws / "cafe.txt").read_bytes()) == (None, b"notes\n")
