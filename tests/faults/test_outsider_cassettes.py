"""Outsider faults: a damaged ``replay:`` cassette is bad input (``invalid_input``, exit 2, one
``agentci: error:`` line, the outputs written) — never a traceback with exit 70 and no
result.json (docs/exit-codes.md: input that used to end in a traceback is invalid_input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentci.testing.case import write_case
from agentci.testing.cli import agentci

pytestmark = pytest.mark.timeout(180)

GOOD = '{"chunks": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "%s"}]}, "finishReason": "STOP"}]}]}'  # noqa: E501

DAMAGED = {
    "not_utf8": (GOOD % "caf\\u00e9").encode().replace(b"caf\\u00e9", b"caf\xe9"),
    "nested_too_deep": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_a_damaged_cassette_is_invalid_input_with_outputs(tmp_path: Path, name: str) -> None:
    case = write_case(tmp_path, None, {"model": {"name": "replay:cassette.jsonl"}})
    (tmp_path / "cassette.jsonl").write_bytes(DAMAGED[name] + b"\n")
    for command in (
        ["validate", str(case.recipe)],
        ["run", str(case.recipe), "--out", str(case.out)],
    ):
        done = agentci(*command, cwd=case.repo)
        assert "Traceback" not in done.stderr, f"{command[0]}: {done.stderr[-1500:]}"
        assert done.returncode == 2, (command[0], done.returncode, done.stderr[-800:])
    result = json.loads((case.out / "result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("invalid_input", 2)
    assert "cassette.jsonl" in result["reason"]
