"""A SIGTERM that comes once the task has ended (here while its session_end hook runs) still
ends the run ``cancelled`` with a ``user_cancelled`` event: the events say why the run, whose
task finished by itself, ends 143."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from agentci.testing.case import write_case

#: A session_end hook that marks its start and waits for the test's go-ahead.
HOLD = """\
import os, time
open({mark!r}, "w").close()
while not os.path.exists({release!r}):
    time.sleep(0.02)
"""


def test_sigterm_while_session_end_runs_is_a_user_cancelled_run(tmp_path: Path):
    mark, release = tmp_path / "mark", tmp_path / "release"
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/hold.py").write_text(HOLD.format(mark=str(mark), release=str(release)))
    hook = {"command": "python3 ci/hold.py", "timeout_seconds": 600}
    recipe = {"sandbox": "none", "allow_no_changes": True, "hooks": {"session_end": [hook]}}
    case = write_case(tmp_path, [{"text": "nothing to do"}], recipe)
    proc = case.popen("-q")
    while not mark.exists():  # a readiness wait: the task's work is over, its end not said yet
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    # sent before the hook may end: agentci's main thread runs the handler before it sees
    # the hook's exit
    proc.send_signal(signal.SIGTERM)
    release.touch()
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    events = [json.loads(line) for line in (case.out / "events.jsonl").open()]
    assert [e["type"] for e in events][-3:] == ["task_finished", "user_cancelled", "run_finished"]
    assert events[-2]["signal"] == "SIGTERM"
    assert (events[-1]["status"], events[-1]["exit_code"]) == ("cancelled", 143)
