"""A run whose output folder fills up: it stops at once, ends internal_error (70), keeps only
whole lines in events.jsonl and writes the outputs that still fit (a real 64 KB tmpfs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_scenario import make_case, shell_call

BIG = "python3 -c \"print('x' * 28000)\""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_full_output_disk_ends_internal_error_with_the_outputs_that_fit(tmp_path: Path):
    script = [shell_call(BIG), shell_call(BIG), shell_call(BIG), {"text": "done"}]
    case = make_case(tmp_path, script, {"policy": {"mode": "yolo"}, "allow_no_changes": True})
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(case.out)], check=True)
    try:
        run = case.run()
        text = (case.out / "events.jsonl").read_text()
        result = json.loads((case.out / "result.json").read_text())
        summary = (case.out / "summary.md").read_text()
        junit = (case.out / "junit.xml").read_text()
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert run.code == 70, run.stderr[-2000:]
    assert "events.jsonl could not be written (No space left on device)" in run.stderr
    assert "Traceback" not in run.stderr
    assert text.endswith("\n")
    types = [json.loads(line)["type"] for line in text.splitlines()]  # every line whole
    assert types.count("tool_call_response") == 1  # the second one did not fit: the run stopped
    assert (result["status"], result["exit_code"]) == ("internal_error", 70)
    assert "events.jsonl could not be written" in result["reason"]
    assert "internal_error" in summary
    assert "internal_error" in junit
