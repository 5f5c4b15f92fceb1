"""What ``agentci run`` writes on stdout is a product of the run (``--prompt``: the answer;
``--format jsonl``: the events): when stdout cannot take it (a full disk under ``> answer.md``),
the command must not exit 0 as if it had been delivered: it exits 70 (an output that cannot be
written, docs/exit-codes.md) with one line on stderr. (The tester asked for 120, Python's own
code for a lost stdout; agentci's status table has 70 for a lost output.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tool_harness import init_repo

from agentci.testing.fake_gemini import FakeGemini

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def run_to_full_disk(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with FakeGemini([{"text": "It sets x to 1."}]) as fake, open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "agentci", "run", "--prompt", "Explain a.py", "-q", *args],
            cwd=ws, env={**os.environ, **fake.env()}, stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120)  # fmt: skip


def test_attack_w4_the_prompt_answer_lost_on_a_full_disk_is_not_exit_0(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    done = run_to_full_disk(ws)
    result = json.loads((ws / ".agentci/out/result.json").read_text())
    assert result["status"] == "no_changes"  # the run itself answered
    assert done.returncode == 70, done.stderr  # but the answer never reached stdout
    assert done.stderr.splitlines() == [
        "agentci: error: the answer could not be written to stdout (No space left on device)"
    ]


def test_attack_w4_jsonl_events_lost_on_a_full_disk_are_not_exit_0(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    done = run_to_full_disk(ws, "--format", "jsonl")
    assert done.returncode == 70, done.stderr  # not one event line reached stdout
    assert done.stderr.splitlines() == [
        "agentci: error: the events could not be written to stdout (No space left on device)"
    ]
