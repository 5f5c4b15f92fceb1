"""Two runs on the same output folder, or editing the same workspace in place, never interleave:
the second one stops at once with invalid_input (exit 2) and names the run that holds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from e2e_scenario import make_case, write_call

HOLD = (
    "import sys; from pathlib import Path\n"
    "from agentci.reports.outdir import prepare_out_dir\n"
    "from agentci.run_locks import lock_workspace\n"
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


def _locks(tmp: Path) -> list[str]:
    return sorted(p.name for p in (tmp / "agentci-locks").iterdir())


def test_a_finished_run_leaves_no_lock_file(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    run = case.run(env={"TMPDIR": str(tmp)})
    assert run.code == 0, run.stderr
    assert _locks(tmp) == []  # none left to pile up, one per run, in a long-lived TMPDIR


def test_the_lock_file_of_a_killed_run_is_removed_by_the_next_run(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    (tmp / "agentci-locks").mkdir(parents=True)
    (tmp / "agentci-locks" / "0123456789abcdef01234567.lock").write_text("4242")
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    assert case.run(env={"TMPDIR": str(tmp)}).code == 0
    assert _locks(tmp) == []


def test_a_held_lock_file_is_kept_and_still_refuses_a_second_run(tmp_path: Path) -> None:
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    other = subprocess.Popen([sys.executable, "-c", HOLD, str(case.out), "out"], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path,
                             env={**os.environ, "TMPDIR": str(tmp)})  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        held = _locks(tmp)
        run = case.run(env={"TMPDIR": str(tmp)})
        assert _locks(tmp) == held and len(held) == 1
    finally:
        other.communicate("")
    assert run.code == 2 and f"(pid {other.pid})" in run.stderr
    assert _locks(tmp) == []
