"""A batch reads the checkout its worktrees come from once, not once per task: the commit
every task starts from and the checkout's uncommitted changes (``git status`` walks the whole
tree). Each task still says, in its own outputs, what its worktree left out. The four-task
case of tests/e2e/batch_scenario.py without verify, its checkout holding an uncommitted file;
a ``git`` on PATH logs each call and runs the real one (a stub at the process boundary)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from batch_scenario import ENV, make_batch, result

from agentci.testing.repo import git


@dataclass
class LoggedBatch:
    out: Path
    head: str
    calls: list[list[str]]  # each git call on the checkout, the -c overrides left out
    code: int
    stderr: str


def _subcommand(args: list[str]) -> list[str]:
    """The arguments after the ``-c key=value`` overrides agentci puts first."""
    while args[:1] == ["-c"]:
        args = args[2:]
    return args


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> LoggedBatch:
    root = tmp_path_factory.mktemp("originals")
    case = make_batch(root, verify=False, t4_turns=None)
    (case.repo / "notes.txt").write_text("not committed\n")
    real = shutil.which("git")
    assert real is not None
    stub = root / "bin"
    stub.mkdir()
    log = root / "git-calls.jsonl"
    (stub / "git").write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write(json.dumps([os.environ.get('GIT_DIR'), sys.argv[1:]]) + '\\n')\n"
        f"os.execv({real!r}, [{real!r}, *sys.argv[1:]])\n"
    )
    (stub / "git").chmod(0o755)
    out = root / "out"
    done = case.agentci(
        "batch", str(case.recipe), "--jobs", "4", "--out", str(out),
        env={"PATH": f"{stub}:{ENV['PATH']}"},
    )  # fmt: skip
    checkout = str(case.repo / ".git")  # not a snapshot's private git dir
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    calls = [_subcommand(args) for git_dir, args in logged if git_dir == checkout]
    head = git(case.repo, "rev-parse", "HEAD").strip()
    return LoggedBatch(out, head, calls, done.returncode, done.stderr)


def test_a_batch_of_four_tasks_reads_the_original_checkouts_head_and_status_once(
    logged: LoggedBatch,
):
    assert logged.code == 0, logged.stderr
    assert result(logged.out)["totals"]["statuses"] == {"success": 4}
    worktrees = [c for c in logged.calls if c[:2] == ["worktree", "add"]]
    assert len(worktrees) == 4
    assert {c[-1] for c in worktrees} == {logged.head}  # every task starts from one commit
    assert [c[0] for c in logged.calls].count("status") == 1
    assert logged.calls.count(["rev-parse", "--verify", "-q", "HEAD^{commit}"]) == 1


def test_each_task_of_the_batch_still_says_what_its_worktree_left_out(logged: LoggedBatch):
    for name in ("t1", "t2", "t3", "t4"):
        task_out = logged.out / "fix" / name
        assert result(task_out)["patch_base"] == f"HEAD {logged.head[:12]}"
        events = [json.loads(x) for x in (task_out / "events.jsonl").read_text().splitlines()]
        [warning] = [e for e in events if e.get("kind") == "worktree_base"]
        assert "1 path(s): notes.txt" in warning["message"]
