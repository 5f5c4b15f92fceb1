"""``agentci batch`` writes a task's small outputs in a worker thread of its own process, and
large ones by a new interpreter (agentci/batch/outputs.py).

A batch always has other threads alive, so it cannot fork a writer the way a one-task run does;
starting a new interpreter for every task was most of a task's CPU. An audit hook in the agentci
process records the interpreters it starts to write outputs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from batch_scenario import ENV, FIXES, make_batch, module, result

from agentci.batch.outputs import SMALL_OUTPUTS
from agentci.testing.repo import git

AUDITED = """
import sys
def hook(event, args):
    if event == "subprocess.Popen" and any("agentci.reports.child" in str(a) for a in args[1] or ()):
        with open(SEEN, "a") as f:
            f.write("interpreter\\n")
SEEN = sys.argv[1]
sys.addaudithook(hook)
sys.argv = ["agentci", *sys.argv[2:]]
from agentci.cli import main
main()
"""


def audited_batch(root: Path, repo: Path, recipe: Path) -> tuple[list[str], Path]:
    """Run ``agentci batch RECIPE --jobs 4``; the interpreters started to write outputs, and
    the output folder."""
    seen, out = root / "seen.txt", root / "out"
    seen.touch()
    done = subprocess.run(
        [sys.executable, "-c", AUDITED, str(seen), "batch", str(recipe), "--jobs", "4",
         "--out", str(out)],
        cwd=repo, env={**os.environ, **ENV}, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return seen.read_text().split(), out


def test_small_task_outputs_are_written_without_a_new_interpreter(tmp_path: Path):
    case = make_batch(tmp_path, verify=False, t4_turns=None)
    started, out = audited_batch(tmp_path, case.repo, case.recipe)
    assert started == []
    assert result(out)["totals"]["statuses"] == {"success": 4}
    for name, fix in FIXES.items():
        task_out = out / "fix" / name
        assert result(task_out)["tasks"][0]["changed_files"] == [f"mods/m{name[1]}.py"]
        assert f"+    return {fix}\n" in (task_out / "patch.diff").read_text()
        assert (task_out / "report.html").is_file()
        assert (task_out / "junit.xml").is_file()
        assert [json.loads(line)["type"] for line in (task_out / "events.jsonl").open()][-1] == (
            "run_finished"
        )


def test_a_patch_over_the_small_limit_is_written_by_a_new_interpreter(tmp_path: Path):
    big = "# " + "x" * 70 + "\n"
    content = big * (SMALL_OUTPUTS // len(big) + 10)  # more than SMALL_OUTPUTS in the patch
    write = {"name": "write_file", "args": {"file_path": "mods/big.txt", "content": content}}
    scripts = {"t1": [{"calls": [write]}, {"text": "wrote it"}]}
    case = make_batch(tmp_path, scripts, verify=False, t4_turns=None)
    started, out = audited_batch(tmp_path, case.repo, case.recipe)
    assert started == ["interpreter"]  # t1's; the three small tasks are written in a thread
    assert result(out)["totals"]["statuses"] == {"success": 4}
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(case.repo), str(clone)], check=True)
    subprocess.run(["git", "apply", str(out / "fix" / "t1" / "patch.diff")], cwd=clone, check=True)
    assert (clone / "mods" / "big.txt").read_text() == content
    assert git(clone, "status", "--porcelain") == "?? mods/big.txt\n"
    assert (clone / "mods" / "m2.py").read_text() == module("0")
