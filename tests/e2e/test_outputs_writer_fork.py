"""A plain ``agentci run`` with a live model writes its outputs in a forked child.

The SDK's host-name lookups leave idle threads in the event loop's thread pool; with them alive
the writer used to start a new interpreter (about 0.6 s more at the end of every run). The pool
is retired before the outputs are written (agentci/run/workers.py), so the child is forked.
An audit hook in the agentci process records forks and the interpreters it starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentci.testing.fake_gemini import FakeGemini

RECIPE = """\
version: 1
name: live
model: {{name: gemini-2.5-flash, retry: {{attempts: 1}}}}
prompt: Add a changelog entry.
workspace: {{path: {workspace}, isolation: copy}}
"""

TURNS = [
    {"function_calls": [{"name": "replace", "args": {"file_path": "CHANGES.md", "old_string": "# Changes\n", "new_string": "# Changes\n\n- Fixed.\n"}}]},
    {"text": "Added the entry."},
]  # fmt: skip

AUDITED = """
import sys
def note(kind):
    with open(SEEN, "a") as f:
        f.write(kind + "\\n")
def hook(event, args):
    if event == "os.fork":
        note("fork")
    elif event == "subprocess.Popen" and any("agentci.reports.child" in str(a) for a in args[1] or ()):
        note("interpreter")
SEEN = sys.argv[1]
sys.addaudithook(hook)
sys.argv = ["agentci", *sys.argv[2:]]
from agentci.cli import main
main()
"""


def test_the_outputs_of_a_live_run_are_written_by_a_forked_child(repo_factory, tmp_path: Path):
    repo = repo_factory({"CHANGES.md": "# Changes\n"})
    recipe = tmp_path / "live.yaml"
    recipe.write_text(RECIPE.format(workspace=repo))
    seen, out = tmp_path / "seen.json", tmp_path / "out"
    with FakeGemini(TURNS) as fake:
        done = subprocess.run(
            [sys.executable, "-c", AUDITED, str(seen), "run", str(recipe), "--out", str(out)],
            cwd=tmp_path, env={**os.environ, **fake.env()}, capture_output=True,
            text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "result.json").read_text())["status"] == "success"
    assert "+- Fixed." in (out / "patch.diff").read_text()
    seen_kinds = seen.read_text().split()
    assert "interpreter" not in seen_kinds
    assert "fork" in seen_kinds
