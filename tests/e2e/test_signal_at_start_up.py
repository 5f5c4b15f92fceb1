"""A signal while the ``agentci`` program is still being imported (the first tenths of a second
of ``agentci run`` on a loaded machine: click, pathlib, the command's modules) is remembered like
one that comes while the run is set up: the run ends cancelled with every output.

The signal is sent by the process to itself at a fixed point of its start-up, the import of
click (a ``sitecustomize`` on ``PYTHONPATH`` adds an import hook that does it): no timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from e2e_scenario import jsonl_lines, make_case

SITECUSTOMIZE = '''
import os, signal, sys

class _SignalAtClick:
    """Send SIGTERM to this process when click is first imported."""

    def find_spec(self, name, path=None, target=None):
        if name == "click":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, _SignalAtClick())
'''


def _program(how: str) -> list[str]:
    if how == "console script":
        return [str(Path(sys.executable).with_name("agentci"))]
    return [sys.executable, "-m", "agentci"]


@pytest.mark.parametrize("how", ["console script", "python -m agentci"])
def test_a_sigterm_while_agentci_is_imported_ends_the_run_cancelled_with_outputs(
    tmp_path: Path, how: str
):
    case = make_case(tmp_path, [{"text": "done"}], {})
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": str(hook)}
    cmd = [*_program(how), "run", str(case.recipe), "--out", str(case.out)]
    proc = subprocess.run(cmd, cwd=case.repo, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 143, proc.stderr
    lines = jsonl_lines(case.out / "events.jsonl")
    assert (lines[-1]["type"], lines[-1]["status"], lines[-1]["exit_code"]) == (
        "run_finished", "cancelled", 143)  # fmt: skip
    assert [e["signal"] for e in lines if e["type"] == "user_cancelled"] == ["SIGTERM"]
    result = yaml.safe_load((case.out / "result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("cancelled", 143)
