"""Outsider faults: ``agentci replay`` reads a log that may be damaged; a line nested deeper
than the JSON parser's recursion limit must be treated like any other unreadable line (skipped,
or exit 2 naming the file) — not a RecursionError traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentci.testing.case import write_call, write_case
from agentci.testing.cli import agentci

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("fmt", ["console", "summary"])
def test_replay_of_a_log_with_a_deeply_nested_line_is_not_a_traceback(
    tmp_path: Path, fmt: str
) -> None:
    case = write_case(tmp_path, [write_call("a.py", "x = 1\n"), {"text": "done"}], {})
    assert case.run().code == 0
    damaged = tmp_path / "damaged"
    shutil.copytree(case.out, damaged)
    lines = (case.out / "events.jsonl").read_bytes().splitlines(keepends=True)
    (damaged / "events.jsonl").write_bytes(
        lines[0] + b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"".join(lines[1:])
    )
    done = agentci("replay", str(damaged), "--format", fmt)
    assert "Traceback" not in done.stderr, done.stderr[-1200:]
    assert done.returncode in (0, 2), (done.returncode, done.stderr[-600:])
