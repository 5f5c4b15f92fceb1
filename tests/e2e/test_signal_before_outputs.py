"""A signal after the last task, once the run's report is made and before its outputs are
written (while the run retires its worker threads), ends the run ``cancelled`` like a signal
anywhere else: it used to be taken for one the report already said, and the run exited 0.

The signal is sent by the process to itself when the run starts retiring its worker threads (a
``sitecustomize`` on ``PYTHONPATH`` sets a profile function that does it): no timing.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from e2e_scenario import jsonl_lines, make_case, write_call

SITECUSTOMIZE = '''
import os, signal, sys

def _at_retire(frame, event, arg):
    """SIGTERM to this process as LoopWorkers.retire starts."""
    if event == "call" and frame.f_code.co_name == "retire" and frame.f_code.co_filename.endswith(
        os.path.join("agentci", "run", "workers.py")
    ):
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGTERM)

sys.setprofile(_at_retire)
'''


def test_a_sigterm_between_the_report_and_the_outputs_cancels_the_run(tmp_path: Path):
    script = [write_call("new.txt", "the agent's work\n"), {"text": "done"}]
    case = make_case(tmp_path, script, {})
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    proc = case.run("-q", env={"PYTHONPATH": str(hook)})
    assert proc.code == 143, proc.stderr
    lines = jsonl_lines(case.out / "events.jsonl")
    reason = "cancelled by SIGTERM before the outputs were written"
    assert (lines[-1]["type"], lines[-1]["status"], lines[-1]["exit_code"], lines[-1]["reason"]) == (
        "run_finished", "cancelled", 143, reason)  # fmt: skip
    assert [e["type"] for e in lines][-3:] == ["task_finished", "user_cancelled", "run_finished"]
    assert lines[-2]["signal"] == "SIGTERM"
    result = yaml.safe_load((case.out / "result.json").read_text())
    assert (result["status"], result["exit_code"], result["reason"]) == ("cancelled", 143, reason)
    assert result["tasks"][0]["status"] == "success"
    assert "+the agent's work" in (case.out / "patch.diff").read_text()
    assert os.path.exists(case.out / "junit.xml")
