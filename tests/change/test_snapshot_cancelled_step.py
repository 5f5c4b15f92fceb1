"""A snapshot whose caller a signal cancelled (verify's, taken right after the agent's last tool
call) goes on in its worker thread until its git ends; the final patch's snapshot waits for it
rather than racing it on the private git dir (commit 40442d5: ``git write-tree failed …
index.lock: File exists``, or a snapshot on a stale tree: an empty patch.diff, changed_files []).

No timing: a ``git`` on ``PATH`` (a wrapper of the real one) holds the first ``write-tree`` of
agentci's private git dir once the agent's file exists — it takes the index lock, as git does,
and waits; the test sends SIGTERM then. The wrapper lets go when the real git failed meanwhile
(the final patch raced it: before the fix) or when another git step of the tracker is seen
waiting for the held one (a ``sitecustomize`` on ``PYTHONPATH`` watches the tracker's worker
threads take its lock: after the fix), or once agentci has exited.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from agentci.testing.case import write_call, write_case

#: agentci's git: the real one, except the held step (see the module docstring).
WRAPPER = """\
#!{python} -IS
import os, subprocess, sys, time
REAL, CLAIM, HELD, RELEASE, FAILED = {real!r}, {claim!r}, {held!r}, {release!r}, {failed!r}
args = sys.argv[1:]
words, skip = [], False
for arg in args:  # the subcommand: the first word that is no option nor an option's value
    if skip:
        skip = False
    elif arg in ("-c", "-C"):
        skip = True
    elif not arg.startswith("-"):
        words.append(arg)
git_dir = os.environ.get("GIT_DIR", "")
index = os.environ.get("GIT_INDEX_FILE", "")
private = os.path.basename(git_dir).startswith("agentci-baseline-")
if not private:
    os.execv(REAL, [REAL, *args])
work = os.environ.get("GIT_WORK_TREE", "")
if words[:1] == ["write-tree"] and index == os.path.join(git_dir, "index") and os.path.exists(
    os.path.join(work, "new.txt")
):
    try:
        os.close(os.open(CLAIM, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        mine = True
    except FileExistsError:
        mine = False
    if mine:  # hold the step as a slow git would: with the index lock taken
        os.close(os.open(index + ".lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        open(HELD, "w").close()
        while not (os.path.exists(RELEASE) or os.path.exists(FAILED)):
            time.sleep(0.02)
        try:
            os.unlink(index + ".lock")
        except OSError:
            pass
        os.execv(REAL, [REAL, *args])
code = subprocess.call([REAL, *args])
if code != 0:
    open(FAILED, "w").close()
sys.exit(code)
"""

#: In agentci: note when a worker thread waits for the tracker's lock while the step is held.
SITECUSTOMIZE = """\
import os, threading

def _watch(frame, event, arg):
    if (
        event == "c_call"
        and getattr(arg, "__name__", "") == "acquire"
        and frame.f_code.co_filename.endswith(os.path.join("agentci", "change", "patch.py"))
        and os.path.exists({held!r})
    ):
        open({waiting!r}, "w").close()

threading.setprofile(_watch)
"""


def test_the_final_patch_waits_for_the_snapshot_a_sigterm_cancelled(tmp_path: Path):
    real = shutil.which("git")
    assert real is not None
    marks = {name: str(tmp_path / name) for name in ("claim", "held", "release", "failed")}
    waiting = tmp_path / "waiting"
    bin_dir, site = tmp_path / "bin", tmp_path / "site"
    bin_dir.mkdir()
    site.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(WRAPPER.format(python=sys.executable, real=real, **marks))
    wrapper.chmod(0o755)
    (site / "sitecustomize.py").write_text(
        SITECUSTOMIZE.format(held=marks["held"], waiting=str(waiting))
    )
    script = [write_call("new.txt", "the agent's work\n"), {"text": "done"}]
    verify = {"command": "test -f new.txt", "attempts": 1}
    case = write_case(tmp_path, script, {"sandbox": "none", "verify": verify})
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(site)}
    proc = case.popen("-q", env=env)
    held, release = Path(marks["held"]), Path(marks["release"])
    while not held.exists():  # a readiness wait: verify's snapshot holds its write-tree
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    while proc.poll() is None and not waiting.exists():  # raced (exits) or waits (the fix)
        time.sleep(0.02)
    release.touch()
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    events = [json.loads(line) for line in (case.out / "events.jsonl").open()]
    assert [e["message"] for e in events if e["type"] == "error"] == []
    result = json.loads((case.out / "result.json").read_text())
    assert (result["status"], result["changed_files"]) == ("cancelled", ["new.txt"])
    assert result["tasks"][0]["reason"] == "cancelled by SIGTERM"
    assert "+the agent's work" in (case.out / "patch.diff").read_text()
