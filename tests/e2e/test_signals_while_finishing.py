"""Signals are honoured while the patch is taken and the outputs are written (issue 10).

Both are slow for a large change (git diff, then redaction of every line), and used to run on
the event loop: a SIGTERM was ignored until they were done, and the run then exited 0. Now the
run ends ``cancelled`` (143) at once, with the outputs that could be written saying so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
import yaml
from e2e_scenario import jsonl_lines, make_case, shell_call, wait_for

ALLOW_SEQ = {"policy": {"rules": [{"tool": "run_shell_command", "command": "seq", "decision": "allow"}]}}  # fmt: skip


def _stop(proc: subprocess.Popen[str]) -> int:
    """SIGTERM; the exit code (a run blocked on its writer would never end: the wait fails)."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):  # e.g. a git diff the run abandoned
            os.killpg(proc.pid, signal.SIGKILL)


def _assert_cancelled(out: Path, code: int) -> None:
    assert code == 143
    events = jsonl_lines(out / "events.jsonl")
    last = events[-1]
    assert (last["type"], last["status"], last["exit_code"]) == ("run_finished", "cancelled", 143)
    assert any(e["type"] == "user_cancelled" and e["signal"] == "SIGTERM" for e in events)
    result = yaml.safe_load((out / "result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("cancelled", 143)
    assert "cancelled" in (out / "summary.md").read_text()


def _events(out: Path) -> list[dict]:
    try:
        return jsonl_lines(out / "events.jsonl")
    except (OSError, ValueError):
        return []


def _after_turn_2(events: list[dict]) -> bool:
    return any(e["type"] == "turn_finished" and e["turn"] == 2 for e in events)


# While the outputs are written: test_sigterm_while_the_outputs_are_written_exits_143 below
# holds the writer deterministically (a FIFO); waiting for `task_finished` and then signalling
# raced a fast writer, which may rightly have finished (a finished run ignores signals).
@pytest.mark.parametrize("ready", [_after_turn_2], ids=["while-the-patch-is-taken"])
def test_sigterm_during_a_50_mb_patch_exits_143(tmp_path: Path, ready):
    script = [shell_call("seq 1 7000000 > big.txt"), {"text": "done"}]  # ~54 MB, one new file
    case = make_case(tmp_path, script, ALLOW_SEQ)
    proc = case.popen("-q")
    wait_for(lambda: ready(_events(case.out)), timeout=300, what=ready.__name__)
    code = _stop(proc)
    _assert_cancelled(case.out, code)
    assert not list(case.out.glob(".*.tmp-*"))  # nothing half-written left behind


def test_sigterm_while_the_outputs_are_written_exits_143(tmp_path: Path):
    """``$GITHUB_STEP_SUMMARY`` is a FIFO nobody reads: appending to it, the last step of
    writing the outputs, blocks until the run is cancelled."""
    fifo = tmp_path / "step-summary"
    os.mkfifo(fifo)
    case = make_case(tmp_path, [{"text": "nothing to do"}], {})
    proc = case.popen("-q", env={"GITHUB_STEP_SUMMARY": str(fifo)})
    wait_for(lambda: (case.out / "summary.md").is_file(), timeout=60, what="summary.md")
    code = _stop(proc)
    _assert_cancelled(case.out, code)


@pytest.mark.parametrize("isolation", ["worktree", "copy"])
def test_a_workspace_whose_patch_a_sigterm_stopped_is_kept_with_the_work(
    tmp_path: Path, isolation: str
):
    """``isolation: worktree`` / ``copy``: that folder is the only copy of the agent's work,
    and a signal while the patch is taken leaves patch.diff empty: the folder is kept (moved out
    of the temp folders a later run prunes), result.json and a warning say where."""
    script = [shell_call("seq 1 7000000 > big.txt"), {"text": "done"}]  # ~54 MB, one new file
    case = make_case(tmp_path, script, {**ALLOW_SEQ, "workspace": {"isolation": isolation}})
    proc = case.popen("-q")
    wait_for(lambda: _after_turn_2(_events(case.out)), timeout=300, what="turn 2")
    code = _stop(proc)
    _assert_cancelled(case.out, code)
    (task,) = yaml.safe_load((case.out / "result.json").read_text())["tasks"]
    # the signal lands while the patch is taken, or just after (big.txt is over patch.diff's
    # size cap, so that patch leaves it out): either way the folder holds the only copy
    assert task["reason"] in (
        "cancelled by SIGTERM while the patch was taken",
        "patch.diff is incomplete: it leaves out big.txt (54888896 bytes)",
    )
    kept = Path(task["extra"]["kept_workspace"])
    try:
        assert kept.name == case.repo.name
        assert kept.parent.name.startswith(f"agentci-kept-{isolation}-")
        assert (kept / "big.txt").read_text().startswith("1\n2\n3\n")
        listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=case.repo,
                                capture_output=True, text=True, check=True).stdout  # fmt: skip
        assert (f"worktree {kept}\n" in listed) == (isolation == "worktree")
        warnings = [e for e in _events(case.out) if e["type"] == "warning"]
        kept_warnings = [e for e in warnings if e["kind"] == "workspace_kept"]
        assert len(kept_warnings) == 1 and str(kept) in kept_warnings[0]["message"]
    finally:
        if isolation == "worktree":
            subprocess.run(["git", "worktree", "remove", "--force", str(kept)], cwd=case.repo)
        shutil.rmtree(kept.parent, ignore_errors=True)
