"""Hook processes and how a task ends, through the real ``agentci`` command: the session_end
hooks run after SIGTERM and when a budget ends the task, and no hook process (nor anything
it started) outlives the run, after SIGTERM and after SIGKILL of agentci itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from agentci.run.task_finish import SIGNALLED_HOOK_SECONDS
from agentci.testing.case import Case, shell_call, write_case
from agentci.testing.processes import running

#: A before_tool hook that starts a grandchild, writes both pids, and waits for a long time.
LINGER = """\
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"])
with open({pids!r} + ".tmp", "w") as f:
    f.write(f"{{os.getpid()}} {{child.pid}}")
os.rename({pids!r} + ".tmp", {pids!r})
time.sleep(300)
"""

#: Records its input (session_end).
RECORD = """\
import json, sys
with open({log!r}, "w") as f:
    f.write(sys.stdin.read())
"""

#: The marker a before_tool hook leaves before the slow command starts.
MARK = """\
import sys
open({mark!r}, "w").close()
"""


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until ``path`` exists (the hook got there), or the run ended without it."""
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)


def _gone(pids: list[int]) -> bool:
    """Whether every pid has ended; waits while any is alive (the kernel delivers the
    parent-death signal and the watchdog kills its group asynchronously)."""
    for _ in range(600):
        if not any(running(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _case(tmp_path: Path, hooks: dict[str, object], script: list[object]) -> Case:
    recipe = {"sandbox": "none", "policy": {"mode": "yolo"}, "hooks": hooks}
    return write_case(tmp_path, script, recipe)


def _linger_case(tmp_path: Path) -> tuple[Case, Path]:
    pids = tmp_path / "pids"
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/linger.py").write_text(LINGER.format(pids=str(pids)))
    hook = {"matcher": "*", "command": "python3 ci/linger.py", "timeout_seconds": 600}
    case = _case(tmp_path, {"before_tool": [hook]}, [shell_call("true"), {"text": "done"}])
    return case, pids


def test_session_end_runs_after_sigterm_with_the_cancelled_status(tmp_path: Path):
    mark, log = tmp_path / "mark", tmp_path / "session_end.json"
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/mark.py").write_text(MARK.format(mark=str(mark)))
    (tmp_path / "ci/record.py").write_text(RECORD.format(log=str(log)))
    case = _case(
        tmp_path,
        {
            "before_tool": [{"matcher": "*", "command": "python3 ci/mark.py"}],
            "session_end": [{"command": "python3 ci/record.py"}],
        },
        [shell_call("sleep 300"), {"text": "done"}],
    )
    proc = case.popen()
    _wait_for(mark, proc)
    time.sleep(0.3)  # the command starts after the hook (either way the task is cancelled)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    doc = json.loads(log.read_text())
    assert (doc["event"], doc["status"], doc["exit_code"]) == ("session_end", "cancelled", 143)
    types = [json.loads(line)["type"] for line in (case.out / "events.jsonl").open()]
    end = types.index("task_finished")
    assert types[end - 1] == "hook_result"  # session_end reported before the task's end


def test_session_end_after_sigterm_gets_a_short_timeout_not_its_own(tmp_path: Path):
    """A runner that sent SIGTERM sends SIGKILL soon after: a session_end hook of the cancelled
    task (timeout_seconds 600) is stopped after SIGNALLED_HOOK_SECONDS, and the run still
    writes its outputs."""
    mark = tmp_path / "mark"
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/mark.py").write_text(MARK.format(mark=str(mark)))
    case = _case(
        tmp_path,
        {
            "before_tool": [{"matcher": "*", "command": "python3 ci/mark.py"}],
            "session_end": [{"command": "sleep 300", "timeout_seconds": 600}],
        },
        [shell_call("sleep 300"), {"text": "done"}],
    )
    proc = case.popen()
    _wait_for(mark, proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    events = [json.loads(line) for line in (case.out / "events.jsonl").open()]
    [hook] = [e for e in events if e["type"] == "hook_result" and e["stage"] == "session_end"]
    assert hook["exit_code"] is None
    assert hook["reason"].startswith(f"the hook timed out after {SIGNALLED_HOOK_SECONDS:g}s;")
    assert json.loads((case.out / "result.json").read_text())["status"] == "cancelled"
    assert events[-1]["type"] == "run_finished"


def test_no_hook_process_outlives_a_run_cancelled_by_sigterm(tmp_path: Path):
    case, pids = _linger_case(tmp_path)
    proc = case.popen()
    _wait_for(pids, proc)
    hook_pids = [int(p) for p in pids.read_text().split()]
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    assert _gone(hook_pids)


def test_no_hook_process_outlives_agentci_killed_with_sigkill(tmp_path: Path):
    case, pids = _linger_case(tmp_path)
    proc = case.popen()
    _wait_for(pids, proc)
    hook_pids = [int(p) for p in pids.read_text().split()]
    assert all(running(p) for p in hook_pids)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert _gone(hook_pids)


def test_session_end_runs_when_a_budget_ends_the_task(tmp_path: Path):
    log = tmp_path / "session_end.json"
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/record.py").write_text(RECORD.format(log=str(log)))
    case = _case(
        tmp_path,
        {"session_end": [{"command": "python3 ci/record.py"}]},
        [shell_call("echo one"), shell_call("echo two"), {"text": "done"}],
    )
    recipe = case.recipe.read_text() + "budget: {max_turns: 1}\n"
    case.recipe.write_text(recipe)
    run = case.run()
    assert run.code == 3, run.stderr
    doc = json.loads(log.read_text())
    assert (doc["status"], doc["exit_code"], doc["turns"]) == ("budget_exhausted", 3, 1)
    assert "max_turns" in doc["reason"]
