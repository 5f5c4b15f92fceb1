"""Two runs on the same output folder, or editing the same workspace in place, never interleave:
the second one stops at once with invalid_input (exit 2) and names the run that holds it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from e2e_scenario import make_case, write_call

HOLD = (
    "import sys; from pathlib import Path\n"
    "from agentci.outputs.outdir import lock_workspace, prepare_out_dir\n"
    "if sys.argv[2] == 'out':\n    prepare_out_dir(Path(sys.argv[1]))\n"
    "else:\n    lock_workspace(Path(sys.argv[1]))\n"
    "print('held', flush=True); sys.stdin.read()\n"
)


def hold(path: Path, what: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), what], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=path.parent)  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_second_run_on_a_busy_workspace_is_refused(tmp_path: Path) -> None:
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    other = hold(case.repo, "ws")
    try:
        run = case.run()
    finally:
        other.communicate("")
    assert run.code == 2, run.stderr
    assert f"in use by another agentci run (pid {other.pid})" in run.stderr
    assert run.result["status"] == "invalid_input"
    assert not (case.repo / "a.txt").exists()  # the agent never ran


def test_a_second_run_on_a_busy_output_folder_is_refused(tmp_path: Path) -> None:
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    other = hold(case.out, "out")
    try:
        run = case.run()
    finally:
        other.communicate("")
    assert run.code == 2
    assert f"in use by another agentci run (pid {other.pid})" in run.stderr
    assert not (case.repo / "a.txt").exists()
