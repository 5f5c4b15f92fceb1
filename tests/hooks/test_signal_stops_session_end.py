"""A SIGTERM while a session_end hook runs stops that hook — its processes are killed — and the
run goes on to write its outputs, rather than waiting out the hook's ``timeout_seconds`` (an
hour here: a run that waited would meet this test's own time limit). The later session_end
hooks do not run; the task keeps its status, the run ends ``cancelled``."""

from __future__ import annotations

import json
import signal
import time
import uuid
from pathlib import Path

from agentci.testing.case import write_case
from agentci.testing.processes import pids_with

#: A session_end hook that marks its start, then runs for an hour.
HOLD = """\
import time
open({mark!r}, "w").close()
time.sleep(3600)
"""

REASON = (
    "cancelled by SIGTERM: the hook was stopped (its processes killed) and the later "
    "session_end hooks were not run"
)


def test_sigterm_stops_the_running_session_end_hook(tmp_path: Path):
    mark, later, marker = tmp_path / "mark", tmp_path / "later-ran", uuid.uuid4().hex
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/hold.py").write_text(HOLD.format(mark=str(mark)))
    (tmp_path / "ci/later.py").write_text(f"open({str(later)!r}, 'w').close()\n")
    hooks = [
        {"command": f"python3 ci/hold.py {marker}", "timeout_seconds": 3600},
        {"command": "python3 ci/later.py"},
    ]
    recipe = {"sandbox": "none", "allow_no_changes": True, "hooks": {"session_end": hooks}}
    case = write_case(tmp_path, [{"text": "nothing to do"}], recipe)
    proc = case.popen("-q")
    try:
        while not mark.exists():  # a readiness wait: the task has ended, its hook runs
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=100)  # waiting out the hour would fail here
    finally:
        if proc.poll() is None:  # agentci's end takes the hook with it (its watchdog)
            proc.kill()
    assert proc.returncode == 143, stderr
    events = [json.loads(line) for line in (case.out / "events.jsonl").open()]
    ends = [e for e in events if e["type"] == "hook_result" and e["stage"] == "session_end"]
    assert [(e["hook"], e["exit_code"], e["reason"]) for e in ends] == [
        ("hooks.session_end[0]", None, REASON)
    ]
    assert [e["type"] for e in events][-4:] == [
        "hook_result", "task_finished", "user_cancelled", "run_finished"]  # fmt: skip
    assert events[-3]["status"] == "no_changes"
    assert (events[-1]["status"], events[-1]["exit_code"]) == ("cancelled", 143)
    result = json.loads((case.out / "result.json").read_text())
    assert (result["status"], result["tasks"][0]["status"]) == ("cancelled", "no_changes")
    assert not later.exists()
    assert pids_with(marker) == []
