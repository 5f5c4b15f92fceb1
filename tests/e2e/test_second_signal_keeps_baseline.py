"""A second Ctrl-C leaves at once and puts nothing back in a workspace edited in place: the
user's uncommitted edit the agent overwrote is then only in the task's private git dir. That
dir is kept where the next run does not delete it, and stderr says where and how to restore."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from e2e_scenario import make_case, shell_call, wait_for, write_call

from agentci.tempdirs import prune_leftovers
from agentci.testing.processes import pids_with

USER_EDIT = "N = 0\n# the user's uncommitted work\nUSER_WORK = 42\n"
ALLOW_SLEEP = {"rules": [{"tool": "run_shell_command", "command": "sleep", "decision": "allow"}]}


def test_a_second_sigint_keeps_the_files_of_the_start_where_the_next_run_leaves_them(
    tmp_path: Path,
) -> None:
    marker = f"sleep 64.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    case = make_case(tmp_path / "case", script, {"policy": ALLOW_SLEEP},
                     files={"notes.py": "N = 0\n"})  # fmt: skip
    (case.repo / "notes.py").write_text(USER_EDIT)  # not committed
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = case.popen(env={"TMPDIR": str(tmp)})
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    # Two signals that arrive together (no timing luck): held while the process is stopped,
    # both handled as it goes on, before its event loop runs a step.
    os.kill(proc.pid, signal.SIGSTOP)
    os.kill(proc.pid, signal.SIGINT)
    os.kill(proc.pid, signal.SIGTERM)
    os.kill(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, 143), err  # the first one's code: INT or TERM
    assert (case.repo / "notes.py").read_text() == "N = 1\n"  # nothing was put back
    (kept,) = [p for p in tmp.iterdir() if p.name.startswith("agentci-kept-baseline-")]
    assert kept not in prune_leftovers(tmp) and kept.is_dir()  # what the next run prunes
    found = re.search(r"to put one back: (git .*) -- PATH\n", err)
    assert found is not None, err
    assert f"are kept in {kept} " in err
    subprocess.run([*shlex.split(found.group(1)), "--", "notes.py"], cwd=case.repo, check=True)
    assert (case.repo / "notes.py").read_text() == USER_EDIT


def test_a_second_signal_to_a_batch_keeps_the_files_of_the_start_of_a_task_in_place(
    tmp_path: Path,
) -> None:
    """A batch task alone on its repository edits it in place, as ``agentci run`` does: a
    second signal keeps its baseline the same way."""
    marker = f"sleep 65.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    case = make_case(tmp_path / "case", script, {"policy": ALLOW_SLEEP},
                     files={"notes.py": "N = 0\n"})  # fmt: skip
    (case.repo / "notes.py").write_text(USER_EDIT)  # not committed
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [sys.executable, "-m", "agentci", "batch", str(case.recipe), "--out", str(case.out)]
    proc = subprocess.Popen(cmd, cwd=case.repo, env={**os.environ, "TMPDIR": str(tmp)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    os.kill(proc.pid, signal.SIGSTOP)
    os.kill(proc.pid, signal.SIGINT)
    os.kill(proc.pid, signal.SIGTERM)
    os.kill(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, 143), err  # the first one's code: INT or TERM
    assert (case.repo / "notes.py").read_text() == "N = 1\n"  # nothing was put back
    (kept,) = [p for p in tmp.iterdir() if p.name.startswith("agentci-kept-baseline-")]
    assert kept not in prune_leftovers(tmp) and kept.is_dir()
    found = re.search(r"to put one back: (git .*) -- PATH\n", err)
    assert found is not None, err
    subprocess.run([*shlex.split(found.group(1)), "--", "notes.py"], cwd=case.repo, check=True)
    assert (case.repo / "notes.py").read_text() == USER_EDIT


def test_a_second_signal_while_a_session_end_hook_runs_keeps_the_files_of_the_start(
    tmp_path: Path,
) -> None:
    """SIGINT cancels the task; its session_end hook runs (up to 5 s); SIGTERM then leaves at
    once. The private git dir used to be deleted before the hook ran: nothing kept the user's
    uncommitted edit the agent overwrote."""
    marker = f"sleep 66.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"
    hook_started = tmp_path / "session_end-started"
    script = [write_call("notes.py", "N = 1\n"), shell_call(marker), {"text": "done"}]
    hook = {"command": f"touch {hook_started}; sleep 30", "timeout_seconds": 60}
    case = make_case(tmp_path / "case", script,
                     {"policy": ALLOW_SLEEP, "hooks": {"session_end": [hook]}},
                     files={"notes.py": "N = 0\n"})  # fmt: skip
    (case.repo / "notes.py").write_text(USER_EDIT)  # not committed
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = case.popen(env={"TMPDIR": str(tmp)})
    wait_for(lambda: pids_with(marker), timeout=120, what="the tool to start")
    os.kill(proc.pid, signal.SIGINT)
    wait_for(hook_started.exists, timeout=120, what="the session_end hook to start")
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert (case.repo / "notes.py").read_text() == "N = 1\n"  # nothing was put back
    (kept,) = [p for p in tmp.iterdir() if p.name.startswith("agentci-kept-baseline-")]
    found = re.search(r"to put one back: (git .*) -- PATH\n", err)
    assert found is not None, err
    subprocess.run([*shlex.split(found.group(1)), "--", "notes.py"], cwd=case.repo, check=True)
    assert (case.repo / "notes.py").read_text() == USER_EDIT


def test_a_second_signal_in_a_later_task_keeps_the_files_of_the_runs_start(
    tmp_path: Path,
) -> None:
    """Two tasks on one workspace edited in place: the first overwrites the user's edit and
    ends; a second signal while the second runs used to keep the second task's start (the first
    agent's file), and the first task's patch.diff is written only at the run's end."""
    marker = f"sleep 67.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"
    first = [write_call("notes.py", "N = 1\n"), {"text": "done"}]
    second = [shell_call(marker), {"text": "done"}]
    recipe = {
        "policy": ALLOW_SLEEP,
        "allow_no_changes": True,
        "tasks": [{"name": "t1"}, {"name": "t2", "model": {"name": "scripted:second.yaml"}}],
    }
    case = make_case(tmp_path / "case", first, recipe, files={"notes.py": "N = 0\n"})
    (case.root / "second.yaml").write_text(yaml.safe_dump(second, sort_keys=False))
    (case.repo / "notes.py").write_text(USER_EDIT)  # not committed
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = case.popen(env={"TMPDIR": str(tmp)})
    wait_for(lambda: pids_with(marker), timeout=120, what="the second task's tool to start")
    os.kill(proc.pid, signal.SIGSTOP)
    os.kill(proc.pid, signal.SIGINT)
    os.kill(proc.pid, signal.SIGTERM)
    os.kill(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, 143), err  # the first one's code: INT or TERM
    assert (case.repo / "notes.py").read_text() == "N = 1\n"
    found = re.search(r"to put one back: (git .*) -- PATH\n", err)
    assert found is not None, err
    subprocess.run([*shlex.split(found.group(1)), "--", "notes.py"], cwd=case.repo, check=True)
    assert (case.repo / "notes.py").read_text() == USER_EDIT


def test_a_finished_run_leaves_no_private_git_dir(tmp_path: Path) -> None:
    """The first in-place task's git dir, kept past its task, goes once the outputs are written."""
    recipe = {"allow_no_changes": True, "tasks": [{"name": "t1"}, {"name": "t2"}]}
    script = [write_call("notes.py", "N = 1\n"), {"text": "done"}]
    case = make_case(tmp_path / "case", script, recipe, files={"notes.py": "N = 0\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    run = case.run(env={"TMPDIR": str(tmp)})
    assert run.code == 0, run.stderr
    assert "+N = 1" in (case.out / "tasks/t1/patch.diff").read_text()
    assert sorted(p.name for p in tmp.iterdir() if p.name.startswith("agentci-")) == []
