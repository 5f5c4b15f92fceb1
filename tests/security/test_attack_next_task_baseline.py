"""The next task on the same tree starts from the last task's end snapshot (no second walk), and
a task during which nothing could write the workspace takes no end snapshot: one task's agent
must not change what the next task's patch is measured against, nor hide a change from it.

Task 1's agent (``yolo``, in the real sandbox) writes a file, tries to reach agentci's private
git dirs (where the snapshots live) to empty their index and HEAD, and leaves writers behind that
would write once task 1 has ended. Task 2's agent makes no tool call and answers late: if a
writer outlived task 1, its file would appear while task 2 runs, after its baseline, and task 2
takes no end snapshot of its own — the file must still be in a patch, never only on disk.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from attack_case import make_attack, shell, tool

from agentci.policy.sandbox import bwrap_problem

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")

#: Task 1's attack: its own change, then the snapshot store, then writers meant to outlive it.
#: A script file (the policy would stop these redirections on a command line; the sandbox is
#: what must hold).
ATTACK = (
    "echo one > one.py\n"
    "for d in /tmp/agentci-* /dev/shm/agentci-* /var/tmp/agentci-*; do\n"
    '  for f in "$d/index" "$d/HEAD"; do [ -f "$f" ] && : > "$f" && echo "$f" >> seen.txt; done\n'
    "done\n"
    "( setsid sh -c 'sleep 1; echo late > late.py' >/dev/null 2>&1 & )\n"
    "nohup sh -c 'sleep 1; echo later > later.py' >/dev/null 2>&1 &\n"
    "true\n"
)


@pytest.fixture
def root() -> Iterator[Path]:
    """A case folder outside /tmp (the sandbox has a private /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="next-task-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_one_tasks_agent_cannot_move_or_hide_from_the_next_tasks_baseline(root: Path) -> None:
    recipe = {
        "policy": {"mode": "yolo"},
        "allow_no_changes": True,
        "tasks": [
            {"name": "t1"},  # the recipe's model: script.yaml
            {"name": "t2", "model": {"name": "scripted:two.yaml"}},
        ],
    }
    script = [tool("write_file", file_path="attack.sh", content=ATTACK), shell("sh attack.sh"),
              {"text": "done"}]  # fmt: skip
    scripts = {"two.yaml": [{"text": "nothing to do", "delay_seconds": 3}]}
    case = make_attack(root, script, recipe, {"app.py": "A = 1\n"}, scripts=scripts)
    run = case.run()
    statuses = {t["name"]: t["status"] for t in run.result["tasks"]}
    assert statuses == {"t1": "success", "t2": "no_changes"}, run.result
    first = (case.out / "tasks" / "t1" / "patch.diff").read_text()
    second = (case.out / "tasks" / "t2" / "patch.diff").read_text()
    assert "+++ b/one.py" in first and "+++ b/attack.sh" in first
    assert "one.py" not in second  # measured against task 1's end, not the checkout
    for name in ("late.py", "later.py"):  # on disk only if a writer outlived its command
        if (case.repo / name).exists():
            assert f"+++ b/{name}" in first + second, f"{name} is on disk but in no patch"
    assert second == "", second
