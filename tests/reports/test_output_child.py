"""The final outputs are written in a child process (a signal can stop it at once), which is
forked only while agentci has one thread: with another thread alive a fork could copy a lock
that thread holds and hang, so a new interpreter writes them instead."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# An audit hook records every fork of this process; the outputs are then written as a run
# writes them, with or without another thread alive.
WRITE = """
import asyncio, json, sys, threading
from pathlib import Path

sys.path.insert(0, sys.argv[3])
forks = []
sys.addaudithook(lambda event, args: event == "os.fork" and forks.append(event))
from outputs_fixtures import run, task
from agentci.reports.child import write_outputs_in_child
from agentci.reports.redact import Redactor

if sys.argv[2] == "threads":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
report = run(task(summary="fixed with the key sk-secret-value-123456"))
failed = asyncio.run(write_outputs_in_child(
    Path(sys.argv[1]), report, {"main": "diff --git a/x b/x\\n"}, Redactor(["sk-secret-value-123456"])))
print(json.dumps({"failed": failed, "forks": len(forks)}))
"""


def _write(tmp_path: Path, threads: str) -> dict:
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", WRITE, str(out), threads, str(Path(__file__).parent)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _written(out: Path) -> None:
    result = json.loads((out / "result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("success", 0)
    assert "sk-secret-value-123456" not in (out / "result.json").read_text()
    assert (out / "patch.diff").read_text() == "diff --git a/x b/x\n"
    assert (out / "junit.xml").is_file() and (out / "summary.md").is_file()


def test_with_another_thread_alive_the_outputs_are_written_without_a_fork(tmp_path: Path):
    answer = _write(tmp_path, "threads")
    assert answer == {"failed": [], "forks": 0}
    _written(tmp_path / "out")


def test_with_one_thread_the_outputs_are_written_by_a_forked_child(tmp_path: Path):
    answer = _write(tmp_path, "one")
    assert answer == {"failed": [], "forks": 1}
    _written(tmp_path / "out")


def test_the_new_interpreter_writing_the_outputs_has_agentcis_sys_path_not_a_pth_folder(
    tmp_path: Path,
):
    """A project installed editable (a ``.pth`` naming its ``src/``) in agentci's environment:
    agentci drops ``src/`` from its ``sys.path`` when a task starts (the workspace's), and the
    new interpreter that writes the outputs must not put it back, or a ``src/linkify_it.py``
    the agent wrote runs there (markdown_it imports it for report.html)."""
    import sysconfig

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    marker = tmp_path / "imported"
    (project / "src" / "linkify_it.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "raise ModuleNotFoundError(\"No module named 'linkify_it'\", name='linkify_it')\n"
    )
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(__file__).resolve().parents[2]
    (site / "agentci-host.pth").write_text(f"{sysconfig.get_path('purelib')}\n{here}\n")
    (site / "_project.pth").write_text(f"{project / 'src'}\n")
    forget = (
        "from agentci.policy.runtime import forget_workspace_imports\n"
        f"forget_workspace_imports(Path({str(project)!r}))\n"
    )
    script = WRITE.replace("from outputs_fixtures", forget + "from outputs_fixtures")
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script, str(out), "threads", str(Path(__file__).parent)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"failed": [], "forks": 0}
    assert (out / "report.html").is_file()
    assert not marker.exists()
