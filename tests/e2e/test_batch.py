"""``agentci batch``, ``matrix``, ``run --shard`` and ``report merge`` on a real repository of
four broken modules (tests/e2e/batch_scenario.py): real git worktrees, real pytest, patches
applied with ``git apply`` to fresh clones, JUnit parsed back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from batch_scenario import (
    EXPECTED,
    FIXES,
    Batch,
    comparable_junit,
    comparable_result,
    make_batch,
    module,
    result,
    suites,
)
from e2e_scenario import jsonl_lines, kill_all, wait_for

from agentci.testing.processes import pids_with
from agentci.testing.repo import git


@dataclass
class BatchRun:
    """One ``agentci batch --jobs 4`` of the four-task case, and what it printed."""

    case: Batch
    out: Path
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory: pytest.TempPathFactory) -> BatchRun:
    """The batch run two tests look at: its report, and the shards' merged report beside it
    (one run of 4 tasks, each with a baseline and a verify pytest, is the expensive part)."""
    root = tmp_path_factory.mktemp("batch")
    case = make_batch(root)
    out = root / "out"
    return BatchRun(case, out, case.agentci("batch", str(case.recipe), "--jobs", "4", "--out", str(out)))  # fmt: skip


def test_four_tasks_at_once_give_four_isolated_patches_and_one_merged_report(
    batch_run: BatchRun, tmp_path: Path
):
    case, out, done = batch_run.case, batch_run.out, batch_run.done
    assert done.returncode == 3, done.stderr  # the worst task's: t4's budget_exhausted
    merged = result(out)
    assert (merged["status"], merged["exit_code"]) == ("budget_exhausted", 3)
    assert {t["task"]: t["status"] for t in merged["tasks"]} == EXPECTED
    assert merged["totals"]["tasks"] == 4
    assert merged["totals"]["statuses"] == {"budget_exhausted": 1, "success": 2, "verify_failed": 1}
    assert "worktree" in done.stderr  # the shared workspace was isolated per task
    for name, fix in FIXES.items():
        task_out = out / "fix" / name
        assert result(task_out)["tasks"][0]["changed_files"] == [f"mods/m{name[1]}.py"]
        clone = tmp_path / f"clone-{name}"
        subprocess.run(["git", "clone", "-q", str(case.repo), str(clone)], check=True)
        subprocess.run(["git", "apply", str(task_out / "patch.diff")], cwd=clone, check=True)
        assert git(clone, "status", "--porcelain") == f" M mods/m{name[1]}.py\n"
        assert (clone / f"mods/m{name[1]}.py").read_text() == module(fix)
    assert git(case.repo, "status", "--porcelain") == ""  # the original is untouched
    found = suites(out / "junit.xml")
    assert sorted(found) == ["fix/t1", "fix/t2", "fix/t3", "fix/t4"]
    agent = {name: next(c for c in suite if c.name == "agent") for name, suite in found.items()}
    assert [n for n, c in agent.items() if c.is_passed] == ["fix/t1", "fix/t2"]
    assert agent["fix/t4"].result[0].type == "budget_exhausted"
    assert any(c.name.startswith("verify:") for c in found["fix/t1"])  # verify's own cases
    summary = (out / "summary.md").read_text()
    assert "| fix/t3 | verify_failed | 1 |" in summary


@pytest.mark.timeout(300)  # six agentci processes and eight pytest runs, one after another
def test_matrix_shards_merged_equal_the_batch(batch_run: BatchRun, tmp_path: Path):
    case, batch_out = batch_run.case, batch_run.out
    assert batch_run.done.returncode == 3, batch_run.done.stderr
    printed = case.agentci("matrix", str(case.recipe), "--per-task")
    assert printed.returncode == 0, printed.stderr
    entries = json.loads(printed.stdout)["include"]
    assert [(e["recipe"], e["shard"], e["tasks"]) for e in entries] == [
        (str(case.recipe), f"t{i}", [f"t{i}"]) for i in range(1, 5)
    ]
    shard_dirs = []
    for entry in entries:
        shard_out = tmp_path / "shards" / entry["shard"]
        ran = case.agentci("run", entry["recipe"], "--shard", entry["shard"], "--out", str(shard_out))  # fmt: skip
        assert ran.returncode == {"t3": 1, "t4": 3}.get(entry["shard"], 0), ran.stderr
        shard_dirs.append(str(shard_out))
    assert git(case.repo, "status", "--porcelain") == ""  # each shard's task had a worktree
    merged_out = tmp_path / "merged"
    merged = case.agentci("report", "merge", *shard_dirs, "--out", str(merged_out))
    assert merged.returncode == 3, merged.stderr
    assert comparable_result(result(merged_out)) == comparable_result(result(batch_out))
    assert comparable_junit(merged_out / "junit.xml") == comparable_junit(batch_out / "junit.xml")
    assert (merged_out / "summary.md").read_text() == (batch_out / "summary.md").read_text()
    for name in FIXES:  # the task folders come along
        patch = (merged_out / "fix" / name / "patch.diff").read_text()
        assert patch == (batch_out / "fix" / name / "patch.diff").read_text()


def test_a_one_task_shard_edits_its_own_worktree_not_the_repository(tmp_path: Path):
    case = make_batch(tmp_path, verify=False)  # four tasks share the repository in place
    out = tmp_path / "s1"
    ran = case.agentci("run", str(case.recipe), "--shard", "t1", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    assert git(case.repo, "status", "--porcelain") == ""  # the task ran in a worktree
    assert (case.repo / "mods/m1.py").read_text() == module("0")
    assert "+    return 1\n" in (out / "fix" / "t1" / "patch.diff").read_text()


def test_shards_k_of_n_split_the_tasks_round_robin(tmp_path: Path):
    case = make_batch(tmp_path)
    printed = case.agentci("matrix", str(case.recipe), "--shards", "3")
    assert printed.returncode == 0, printed.stderr
    entries = json.loads(printed.stdout)["include"]
    assert [(e["shard"], e["tasks"]) for e in entries] == [
        ("1/3", ["t1", "t4"]), ("2/3", ["t2"]), ("3/3", ["t3"]),
    ]  # fmt: skip
    bad = case.agentci("run", str(case.recipe), "--shard", "nope", "--out", str(tmp_path / "o"))
    assert bad.returncode == 2
    assert "--shard nope: selects no task" in bad.stderr


# its own waits allow 120 s for the four tasks to start and 120 s for the batch to end: the
# project's 120 s per test would cut it short first on a loaded runner (50 s here at load ~20)
@pytest.mark.timeout(300)
def test_sigterm_stops_every_task_and_each_writes_its_outputs(tmp_path: Path):
    marker = f"1037.{os.getpid()}"  # a unique sleep: each task's model runs it, then waits
    sleeper = [{"calls": [{"name": "run_shell_command", "args": {"command": f"sleep {marker}"}}]},
               {"text": "slept"}]  # fmt: skip
    allow = {"rules": [{"tool": "run_shell_command", "command": "sleep", "decision": "allow"}]}
    case = make_batch(tmp_path, {f"t{i}": sleeper for i in range(1, 5)}, policy=allow)
    out = tmp_path / "out"
    proc = case.popen("batch", str(case.recipe), "--jobs", "4", "--out", str(out))
    try:
        wait_for(lambda: len(pids_with(f"sleep {marker}")) == 4, 120, "four running tasks")
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
    finally:
        kill_all(pids_with(f"sleep {marker}"))
    assert proc.returncode == 143, stderr
    merged = result(out)
    assert (merged["status"], merged["exit_code"]) == ("cancelled", 143)
    assert [t["status"] for t in merged["tasks"]] == ["cancelled"] * 4
    for i in range(1, 5):
        task_out = out / "fix" / f"t{i}"
        assert (task_out / "patch.diff").is_file() and (task_out / "junit.xml").is_file()
        assert (task_out / "summary.md").is_file()
        assert result(task_out)["exit_code"] == 143
        last = jsonl_lines(task_out / "events.jsonl")[-1]
        assert (last["type"], last["status"], last["exit_code"]) == (
            "run_finished",
            "cancelled",
            143,
        )
    assert len(suites(out / "junit.xml")) == 4
    assert not pids_with(f"sleep {marker}")  # no tool outlives the batch


def test_budget_total_holds_across_four_concurrent_tasks(tmp_path: Path):
    cap = 20_000
    writes = [{"calls": [{"name": "write_file", "args": {"file_path": f"notes/{n}.txt",
                                                          "content": "x" * 200}}],
               "delay_seconds": 0.2}  # the calls of the four tasks overlap
              for n in range(60)]  # fmt: skip
    case = make_batch(
        tmp_path,
        {f"t{i}": [*writes, {"text": "done"}] for i in range(1, 5)},
        model={"name": "scripted:t1.yaml", "max_output_tokens": 300},
        budget={"total": {"max_tokens": cap}},
        t4_turns=None,
        verify=False,
    )
    out = tmp_path / "out"
    done = case.agentci("batch", str(case.recipe), "--jobs", "4", "--out", str(out))
    assert done.returncode == 3, done.stderr
    merged = result(out)
    assert merged["totals"]["usage"]["total_tokens"] <= cap
    exhausted = [t for t in merged["tasks"] if "total.max_tokens" in t["reason"]]
    assert exhausted, merged["tasks"]
    assert all(t["usage"]["model_calls"] >= 2 for t in merged["tasks"])  # all four took part


def test_fail_fast_starts_no_task_after_a_failure(tmp_path: Path):
    case = make_batch(tmp_path, {"t1": [{"text": "nothing to do here"}]})
    out = tmp_path / "out"
    done = case.agentci("batch", str(case.recipe), "--fail-fast", "--out", str(out))
    assert done.returncode == 1, done.stderr
    merged = result(out)
    assert [(t["task"], t["exit_code"]) for t in merged["tasks"]] == [("t1", 1)]
    assert merged["not_run"] == ["fix/t2", "fix/t3", "fix/t4"]
    assert set(merged["not_run_reasons"].values()) == {"--fail-fast: task fix/t1 failed"}
    assert not (out / "fix" / "t2").exists()


def test_an_outage_stops_the_batch_instead_of_spending_every_tasks_retries(tmp_path: Path):
    """The model API answers 503 to every call: the first task spends its retries and ends
    provider_unavailable; the other three never start (not_run, with the reason), and the
    batch exits 75 (retryable)."""
    import yaml

    from agentci.testing.fake_gemini import FakeGemini

    case = make_batch(tmp_path)
    recipe = yaml.safe_load(case.recipe.read_text())
    retry = {"attempts": 2, "initial_delay_seconds": 0, "max_delay_seconds": 0}
    for task in recipe["tasks"]:
        task["model"] = {"name": "gemini-2.5-flash", "retry": retry}
    case.recipe.write_text(yaml.safe_dump(recipe, sort_keys=False))
    out = tmp_path / "out"
    with FakeGemini([{"error": {"code": 503}}] * 20) as fake:
        done = case.agentci("batch", str(case.recipe), "--jobs", "1", "--out", str(out),
                            env=fake.env())  # fmt: skip
        calls = len(fake.generate_requests)
    assert done.returncode == 75, done.stderr
    assert calls == 2  # one task's retries, not four
    merged = result(out)
    assert (merged["status"], merged["exit_code"], merged["retryable"]) == (
        "provider_unavailable", 75, True)  # fmt: skip
    assert [(t["key"], t["status"]) for t in merged["tasks"]] == [
        ("fix/t1", "provider_unavailable")]  # fmt: skip
    assert merged["not_run"] == ["fix/t2", "fix/t3", "fix/t4"]
    assert merged["not_run_reasons"] == {
        k: "provider_unavailable in task fix/t1" for k in ("fix/t2", "fix/t3", "fix/t4")
    }
    assert not (out / "fix" / "t2").exists()
    summary = (out / "summary.md").read_text()
    assert "- fix/t3: provider_unavailable in task fix/t1" in summary
    assert "Run it again later" in summary
