"""Two runs on the same output folder, or editing the same workspace in place, never interleave:
the second one stops at once with invalid_input (exit 2) and names the run that holds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from e2e_scenario import make_case, write_call

from agentci.run_locks import OUT, lock_file

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


def _lock(out: Path) -> Path:
    """The lock file of the output folder ``out`` (in the fixed lock folder)."""
    return lock_file(OUT, out.resolve())


def test_a_finished_run_leaves_no_lock_file(tmp_path: Path) -> None:
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    run = case.run()
    assert run.code == 0, run.stderr
    assert not _lock(case.out).exists()  # none left to pile up, one per run, in /tmp


def test_the_lock_file_of_a_killed_run_is_removed_by_the_next_run(tmp_path: Path) -> None:
    stale = lock_file(OUT, tmp_path / "a-killed-runs-out")
    stale.parent.mkdir(exist_ok=True)
    stale.write_text("4242")  # no process holds it
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    assert case.run().code == 0
    assert not stale.exists() and not _lock(case.out).exists()


def test_a_held_lock_file_is_kept_and_still_refuses_a_second_run(tmp_path: Path) -> None:
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    other = hold(case.out, "out")
    try:
        assert _lock(case.out).read_text() == str(other.pid)
        run = case.run()
        assert _lock(case.out).read_text() == str(other.pid)
    finally:
        other.communicate("")
    assert run.code == 2 and f"(pid {other.pid})" in run.stderr
    assert not _lock(case.out).exists()


def test_runs_with_different_tmpdirs_still_refuse_each_others_output_folder(
    tmp_path: Path,
) -> None:
    """Each job's own TMPDIR (runner.temp) must not hide the lock: the second run used to move
    the first one's live folder aside, and the first then wrote its outputs over the second's."""
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    (tmp_path / "t1").mkdir()
    (tmp_path / "t2").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "t1")}
    other = subprocess.Popen([sys.executable, "-c", HOLD, str(case.out), "out"], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path,
                             env=env)  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        run = case.run(env={"TMPDIR": str(tmp_path / "t2")})
    finally:
        other.communicate("")
    assert run.code == 2, run.stderr
    assert f"in use by another agentci run (pid {other.pid})" in run.stderr
    assert not (case.repo / "a.txt").exists()


def test_a_tmpdir_inside_the_workspace_is_refused_before_the_agent(tmp_path: Path) -> None:
    """agentci keeps its private snapshots in TMPDIR: inside the workspace every snapshot counted
    them as the agent's change (a junk patch, a guard failed on 79 files for one written)."""
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    (case.repo / "tmp").mkdir()
    run = case.run(env={"TMPDIR": str(case.repo / "tmp")})
    assert run.code == 2, run.stderr
    assert run.result["status"] == "invalid_input"
    assert "(TMPDIR) is inside the workspace" in run.stderr
    assert not (case.repo / "a.txt").exists()  # the agent never ran
    assert sorted(p.name for p in (case.repo / "tmp").iterdir()) == []  # nothing of agentci's left
