"""A signal that comes after the clean path's ruff passed, while it writes the outputs of the run
it stands in for (agentci.precommit.clean_outputs.write_clean_run), hands the decision to the
run (None: the hook then runs the whole run, which starts cancelled — agentci.run.early — as
test_a_signal_while_ruff_runs_ends_the_hook_cancelled_with_outputs shows), and leaves the output
folder empty; it used to answer 0 with a successful run's outputs. The signal is sent for real
and taken by the hook's own early handler, as when it comes during the writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentci.testing.repo import commit_repo

#: The clean path's last step after ruff passed, with SIGTERM just arrived.
WRITE_AFTER_SIGNAL = """\
import json, os, signal, sys, time
from pathlib import Path
import yaml
from agentci.precommit.clean_outputs import CleanRun, render_prompt, utc_now, write_clean_run
from agentci.precommit.quick import PASSED, recipe_file
from agentci.run import early
early.install(remember=True)  # as the clean path, once ruff has run
os.kill(os.getpid(), signal.SIGTERM)
data = recipe_file().read_bytes()
recipe = yaml.safe_load(data)
command = recipe["verify"]["command"].replace("{{ files }}", "a.py")
found = CleanRun(
    recipe=recipe, recipe_bytes=data, files=["a.py"], command=command,
    prompt=render_prompt(recipe["prompt"], command, PASSED, "a.py"), output=PASSED,
    workspace=Path.cwd(), duration_ms=1, started=time.monotonic(), started_at=utc_now(),
    verified_at=utc_now(), search_engine="grep", base_commit=None,
)
out = Path(sys.argv[1])
code = write_clean_run(found, out, quiet=True)
print(json.dumps({"code": code, "left": sorted(p.name for p in out.iterdir()),
                  "pending": early.pending()}))
"""


def test_a_signal_while_the_outputs_are_written_leaves_the_end_to_the_run(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", {"a.py": "x = 1\n", ".gitignore": ".agentci/\n"})
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", WRITE_AFTER_SIGNAL, str(out)],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # None: the run decides; nothing of a successful run is left for it (nor for a reader)
    assert seen == {"code": None, "left": [], "pending": "SIGTERM"}
