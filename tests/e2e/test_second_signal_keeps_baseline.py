"""A second Ctrl-C leaves at once and puts nothing back in a workspace edited in place: the
user's uncommitted edit the agent overwrote is then only in agentci's private git dir of the
run's start. That dir is kept where the next run does not delete it, and stderr says where and
how to restore."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from e2e_scenario import make_case, shell_call, wait_for, write_call

from agentci.tempdirs import prune_leftovers
from agentci.testing.case import Case
from agentci.testing.processes import pids_with

USER_EDIT = "N = 0\n# the user's uncommitted work\nUSER_WORK = 42\n"
ALLOW_SLEEP = {"rules": [{"tool": "run_shell_command", "command": "sleep", "decision": "allow"}]}


def _marker(n: int) -> str:
    """A sleep command no other test runs (the tests wait for its process)."""
    return f"sleep {n}.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"


def _edited_case(tmp_path: Path, script: list[Any], recipe: dict[str, Any]) -> Case:
    """``notes.py`` committed as ``N = 0``, then edited by the user (not committed); the
    run's TMPDIR is ``tmp_path / "tmp"``."""
    case = make_case(tmp_path / "case", script, {"policy": ALLOW_SLEEP, **recipe},
                     files={"notes.py": "N = 0\n"})  # fmt: skip
    (case.repo / "notes.py").write_text(USER_EDIT)
    (tmp_path / "tmp").mkdir()
    return case


def _two_signals_at_once(proc: subprocess.Popen[str]) -> str:
    """SIGINT and SIGTERM held while the process is stopped, both handled as it goes on (no
    timing luck); its stderr. The exit code is the first one's: the kernel picks which."""
    for sig in (signal.SIGSTOP, signal.SIGINT, signal.SIGTERM, signal.SIGCONT):
        os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, 143), err
    return err


def _kept_and_restorable(case: Case, tmp: Path, err: str) -> None:
    """Nothing was put back; the kept git dir survives the next run's pruning, and the command
    stderr names puts the user's edit back."""
    assert (case.repo / "notes.py").read_text() == "N = 1\n"
    (kept,) = [p for p in tmp.iterdir() if p.name.startswith("agentci-kept-baseline-")]
    assert f"are kept in {kept} " in err
    assert kept not in prune_leftovers(tmp) and kept.is_dir()
    found = re.search(r"to put one back: (git .*) -- PATH\n", err)
    assert found is not None, err
    subprocess.run([*shlex.split(found.group(1)), "--", "notes.py"], cwd=case.repo, check=True)
    assert (case.repo / "notes.py").read_text() == USER_EDIT


def test_a_second_sigint_keeps_the_files_of_the_start_where_the_next_run_leaves_them(
    tmp_path: Path,
) -> None:
    marker = _marker(64)
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    case = _edited_case(tmp_path, script, {})
    proc = case.popen(env={"TMPDIR": str(tmp_path / "tmp")})
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    _kept_and_restorable(case, tmp_path / "tmp", _two_signals_at_once(proc))


def test_a_second_signal_to_a_batch_keeps_the_files_of_the_start_of_a_task_in_place(
    tmp_path: Path,
) -> None:
    """A batch task alone on its repository edits it in place, as ``agentci run`` does: a
    second signal keeps its baseline the same way."""
    marker = _marker(65)
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    case = _edited_case(tmp_path, script, {})
    cmd = [sys.executable, "-m", "agentci", "batch", str(case.recipe), "--out", str(case.out)]
    proc = subprocess.Popen(cmd, cwd=case.repo,
                            env={**os.environ, "TMPDIR": str(tmp_path / "tmp")},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    _kept_and_restorable(case, tmp_path / "tmp", _two_signals_at_once(proc))


def test_a_second_signal_while_a_session_end_hook_runs_keeps_the_files_of_the_start(
    tmp_path: Path,
) -> None:
    """SIGINT cancels the task; its session_end hook runs (up to 5 s); SIGTERM then leaves at
    once. The private git dir used to be deleted before the hook ran: nothing kept the user's
    uncommitted edit the agent overwrote."""
    marker = _marker(66)
    hook_started = tmp_path / "session_end-started"
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    hook = {"command": f"touch {hook_started}; sleep 30", "timeout_seconds": 60}
    case = _edited_case(tmp_path, script, {"hooks": {"session_end": [hook]}})
    proc = case.popen(env={"TMPDIR": str(tmp_path / "tmp")})
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    os.kill(proc.pid, signal.SIGINT)
    wait_for(hook_started.exists, timeout=120, what="the session_end hook to start")
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    _kept_and_restorable(case, tmp_path / "tmp", err)


def test_a_second_signal_in_a_later_task_keeps_the_files_of_the_runs_start(
    tmp_path: Path,
) -> None:
    """Two tasks on one workspace edited in place: the first overwrites the user's edit and
    ends; a second signal while the second runs used to keep the second task's start (the first
    agent's file), and the first task's patch.diff is written only at the run's end."""
    marker = _marker(67)
    first = [write_call("notes.py", "N = 1\n"), {"text": "done"}]
    recipe = {
        "allow_no_changes": True,
        "tasks": [{"name": "t1"}, {"name": "t2", "model": {"name": "scripted:second.yaml"}}],
    }
    case = _edited_case(tmp_path, first, recipe)
    second = [shell_call(marker), {"text": "done"}]
    (case.root / "second.yaml").write_text(yaml.safe_dump(second, sort_keys=False))
    proc = case.popen(env={"TMPDIR": str(tmp_path / "tmp")})
    wait_for(lambda: pids_with(marker), timeout=120, what="the second task's tool to start")
    _kept_and_restorable(case, tmp_path / "tmp", _two_signals_at_once(proc))


def test_a_finished_run_leaves_no_private_git_dir(tmp_path: Path) -> None:
    """The first in-place task's git dir, kept past its task, goes once the outputs are written."""
    recipe = {"allow_no_changes": True, "tasks": [{"name": "t1"}, {"name": "t2"}]}
    case = _edited_case(tmp_path, [write_call("notes.py", "N = 1\n"), {"text": "done"}], recipe)
    run = case.run(env={"TMPDIR": str(tmp_path / "tmp")})
    assert run.code == 0, run.stderr
    assert "+N = 1" in (case.out / "tasks/t1/patch.diff").read_text()
    assert [p.name for p in (tmp_path / "tmp").iterdir() if p.name.startswith("agentci-")] == []
