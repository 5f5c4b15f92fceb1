"""Attack (w5): the next task's carried-over baseline (ChangeTracker.start with a handover,
snapshot.carry_over) deletes a user's ignored file.

Task 1 (``guards.allowed_paths``) has its agent delete the user's ignored ``.env``; the guard
puts it back at the task's end (verify.kept.restore_ignored). Only tracked reverts call
``tracker.workspace_changed()`` (run/guard_reverts.py), so the end snapshot handed to task 2 is
the one taken before the put-back: ``.env`` is not among its ignored files. Task 2 starts from
it (no setup, no verify: nothing ran in between), so its baseline says ``.env`` did not exist;
task 2's agent only reads a file, and task 2's own allowed_paths guard then takes ``.env`` for
a file its agent made and deletes it. The user's ignored file is gone after the run."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from attack_case import make_attack, shell, tool

from agentci.policy.sandbox import bwrap_problem

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")

SECRET = "API_TOKEN=the-users-own-value\n"


@pytest.fixture
def root() -> Iterator[Path]:
    """A case folder outside /tmp (the sandbox has a private /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="w5-carry-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_attack_w5_the_next_task_never_deletes_the_users_ignored_file(root: Path) -> None:
    recipe = {
        "policy": {"mode": "yolo"},
        "allow_no_changes": True,
        "guards": {"allowed_paths": ["src/**"]},
        "tasks": [
            {"name": "t1"},  # the recipe's model: script.yaml
            {"name": "t2", "model": {"name": "scripted:two.yaml"}},
        ],
    }
    script = [shell("rm .env"), {"text": "done"}]
    scripts = {"two.yaml": [tool("read_file", file_path="src/app.py"), {"text": "nothing to do"}]}
    files = {"src/app.py": "A = 1\n", ".gitignore": ".env\n"}
    case = make_attack(root, script, recipe, files, scripts=scripts)
    (case.repo / ".env").write_text(SECRET)  # the user's ignored file, never committed
    run = case.run()
    assert [t["name"] for t in run.result["tasks"]] == ["t1", "t2"], run.result
    assert (case.repo / ".env").is_file(), "the user's ignored .env was deleted by the run"
    assert (case.repo / ".env").read_text() == SECRET


@needs_bwrap
def test_attack_w5_the_next_task_does_not_claim_the_put_back_file(root: Path) -> None:
    """The same stale handover with task 2 on default guards: nothing is deleted, but task 2's
    outputs say its agent (which only read a file) wrote the user's ``.env``."""
    recipe = {
        "policy": {"mode": "yolo"},
        "allow_no_changes": True,
        "tasks": [
            {"name": "t1", "guards": {"allowed_paths": ["src/**"]}},
            {"name": "t2", "model": {"name": "scripted:two.yaml"}},
        ],
    }
    script = [shell("rm .env"), {"text": "done"}]
    scripts = {"two.yaml": [tool("read_file", file_path="src/app.py"), {"text": "nothing to do"}]}
    files = {"src/app.py": "A = 1\n", ".gitignore": ".env\n"}
    case = make_attack(root, script, recipe, files, scripts=scripts)
    (case.repo / ".env").write_text(SECRET)
    run = case.run()
    assert (case.repo / ".env").read_text() == SECRET  # task 1's guard put it back
    events = [json.loads(x) for x in (case.out / "events.jsonl").read_text().splitlines()]
    claimed = [
        e["message"]
        for e in events
        if e["type"] == "warning" and e["task"] == "t2" and e.get("kind") == "ignored_files_written"
    ]
    assert claimed == [], claimed
    assert run.result.get("ignored_files_written") == [], run.result.get("ignored_files_written")
