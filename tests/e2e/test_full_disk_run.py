"""A run whose output folder fills up: it stops at once, ends internal_error (70), keeps only
whole lines in events.jsonl and writes the outputs that still fit (a real 64 KB tmpfs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


MB_OUTPUT = "python3 -c \"print('y' * 1_100_000)\""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_saved_tool_output_that_fills_the_disk_still_leaves_the_final_outputs(tmp_path: Path):
    """A 1 MB tool output saved in a 1 MB output folder: no partial file is left, and the
    result.json, junit.xml and summary.md still fit (space is kept for them)."""
    script = [shell_call(MB_OUTPUT), shell_call(MB_OUTPUT), {"text": "done"}]
    case = make_case(tmp_path, script, {"policy": {"mode": "yolo"}, "allow_no_changes": True})
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(case.out)], check=True)
    try:
        run = case.run()
        saved = sorted(p.name for p in (case.out / "tool-outputs").glob("*"))
        result = json.loads((case.out / "result.json").read_text())
        summary = (case.out / "summary.md").read_text()
        junit = (case.out / "junit.xml").read_text()
        events = [json.loads(line) for line in (case.out / "events.jsonl").read_text().splitlines()]
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert "Traceback" not in run.stderr
    assert saved == []  # the output that did not fit is not left half written
    assert (result["status"], result["exit_code"]) == (
        events[-1]["status"],
        events[-1]["exit_code"],
    )
    assert run.code == result["exit_code"]
    assert result["status"] in summary and result["status"] in junit


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_disk_filled_to_the_last_byte_still_takes_the_final_outputs(tmp_path: Path):
    """A command fills the output disk completely: the run stops internal_error (70), and the
    space agentci kept at the start takes the last events, result.json, junit.xml, summary.md."""
    case = make_case(tmp_path, [], {"policy": {"mode": "yolo"}, "allow_no_changes": True})
    fill = f"dd if=/dev/zero of={case.out}/filler bs=4k 2>/dev/null; echo filled"
    (tmp_path / "script.yaml").write_text(
        json.dumps([shell_call(fill), shell_call("echo more"), {"text": "done"}])
    )
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(case.out)], check=True)
    try:
        run = case.run()
        result = json.loads((case.out / "result.json").read_text())
        summary = (case.out / "summary.md").read_text()
        junit = (case.out / "junit.xml").read_text()
        lines = (case.out / "events.jsonl").read_text().splitlines()
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert run.code == 70, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert (result["status"], result["exit_code"]) == ("internal_error", 70)
    assert "events.jsonl could not be written (No space left on device)" in result["reason"]
    last = json.loads(lines[-1])
    assert (last["type"], last["status"], last["exit_code"]) == (
        "run_finished",
        "internal_error",
        70,
    )
    assert "internal_error" in summary and "internal_error" in junit


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_patch_too_big_for_the_disk_ends_internal_error_in_every_output(tmp_path: Path):
    """patch.diff (1.5 MB) cannot be written to a 1 MB output disk: exit code, result.json,
    summary.md and the last event all say internal_error (70), none says success."""
    big = "python3 -c \"open('big.txt', 'w').write('z' * 60 + chr(10)) or None\" && " + (
        "python3 -c \"open('big.txt', 'w').write(('z' * 60 + chr(10)) * 25000)\""
    )
    case = make_case(tmp_path, [shell_call(big), {"text": "wrote big.txt"}],
                     {"policy": {"mode": "yolo"}})  # fmt: skip
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(case.out)], check=True)
    try:
        run = case.run()
        result = json.loads((case.out / "result.json").read_text())
        summary = (case.out / "summary.md").read_text()
        last = json.loads((case.out / "events.jsonl").read_text().splitlines()[-1])
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert run.code == 70, run.stderr[-2000:]
    assert (result["status"], result["exit_code"]) == ("internal_error", 70)
    assert result["reason"].startswith("writing outputs failed: ")
    assert "patch.diff" in result["reason"]
    assert (last["type"], last["status"], last["exit_code"]) == (
        "run_finished",
        "internal_error",
        70,
    )
    assert "status `internal_error`, exit code 70" in summary


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_batch_task_whose_patch_did_not_fit_fails_the_batch(tmp_path: Path):
    """The task's patch.diff cannot be written: its own result.json says internal_error (70)
    for the run and for the task, so the batch, which reads the task's entry, fails too (it
    used to exit 0, "Batch succeeded", over the task's missing patch)."""
    big = "python3 -c \"open('big.txt', 'w').write(('z' * 60 + chr(10)) * 25000)\""
    case = make_case(tmp_path, [shell_call(big), {"text": "wrote big.txt"}],
                     {"name": "big", "policy": {"mode": "yolo"}})  # fmt: skip
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(case.out)], check=True)
    try:
        batch = subprocess.run(
            [sys.executable, "-m", "agentci", "batch", str(case.recipe), "--out", str(case.out)],
            cwd=case.repo, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        result = json.loads((case.out / "result.json").read_text())
        task = json.loads((case.out / "big" / "big" / "result.json").read_text())
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert batch.returncode == 70, batch.stderr[-2000:]
    assert (task["status"], task["exit_code"]) == ("internal_error", 70)
    assert (task["tasks"][0]["status"], task["tasks"][0]["exit_code"]) == ("internal_error", 70)
    assert "patch.diff" in task["tasks"][0]["reason"]
    assert (result["status"], result["exit_code"]) == ("internal_error", 70)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
@pytest.mark.parametrize("isolation", ["worktree", "copy"])
def test_a_worktree_whose_patch_did_not_fit_is_kept_with_the_work(tmp_path: Path, isolation: str):
    """patch.diff holds the agent's only copy of the work and cannot be written: the copy or
    worktree is kept (moved under $TMPDIR/agentci-kept-*), and stderr and a workspace_kept
    warning say where. It used to be removed before the outputs were written."""
    big = "python3 -c \"open('big.txt', 'w').write(('z' * 60 + chr(10)) * 25000)\""
    case = make_case(tmp_path, [shell_call(big), {"text": "wrote big.txt"}],
                     {"policy": {"mode": "yolo"}, "workspace": {"isolation": isolation}})  # fmt: skip
    temp = tmp_path / "temp"
    temp.mkdir()
    case.out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(case.out)], check=True)
    try:
        run = case.run(env={"TMPDIR": str(temp)})
        events = (case.out / "events.jsonl").read_text()
    finally:
        subprocess.run(["umount", str(case.out)], check=True)
    assert run.code == 70, run.stderr[-2000:]
    kept = [p for p in temp.glob("agentci-kept-*/**/big.txt")]
    assert len(kept) == 1 and kept[0].stat().st_size == 61 * 25000
    assert f"is kept at {kept[0].parent}" in run.stderr
    assert '"kind":"workspace_kept"' in events.replace(" ", "")
    assert not (case.repo / "big.txt").exists()  # the user's checkout is untouched
