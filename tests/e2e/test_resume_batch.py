"""``agentci batch --resume OUT`` and ``agentci run --shard ID --resume OUT``: only the tasks
that stopped run again, from their last complete turn; the judged ones are carried over."""

from __future__ import annotations

import json
from pathlib import Path

from batch_scenario import make_batch, result


def _task(out: Path, name: str) -> dict:
    return json.loads((out / "fix" / name / "result.json").read_text())["tasks"][0]


def test_a_resumed_batch_runs_only_the_stopped_task(tmp_path: Path):
    case = make_batch(tmp_path, verify=False)
    first = case.agentci("batch", str(case.recipe), "--jobs", "2", "--out", "../first")
    assert first.returncode == 3, first.stderr
    for name in ("t1", "t2", "t3"):  # a judged task is never run again: its script is gone
        (tmp_path / f"{name}.yaml").write_text("[]")

    again = case.agentci("batch", str(case.recipe), "--jobs", "2", "--out", "../second",
                         "--resume", "../first", "--max-turns", "5")  # fmt: skip

    second = tmp_path / "second"
    assert again.returncode == 0, again.stderr
    statuses = {t["key"]: t["status"] for t in result(second)["tasks"]}
    assert set(statuses.values()) == {"success"} and len(statuses) == 4
    for name in ("t1", "t2", "t3"):
        task = _task(second, name)
        assert (task["resume"]["kept"], task["turns"]) == (True, 0)
        assert (second / "fix" / name / "patch.diff").read_bytes() == (
            tmp_path / "first" / "fix" / name / "patch.diff"
        ).read_bytes()
    t4 = _task(second, "t4")
    assert (t4["resume"]["continued"], t4["resume"]["previous"]["turns"], t4["turns"]) == (
        True, 1, 1,
    )  # fmt: skip
    assert "return 4" in (second / "fix" / "t4" / "patch.diff").read_text()


def test_a_shard_resumes_from_its_own_folder(tmp_path: Path):
    case = make_batch(tmp_path, verify=False)
    first = case.agentci("run", str(case.recipe), "--shard", "t4", "--out", "../first")
    assert first.returncode == 3, first.stderr

    again = case.agentci("run", str(case.recipe), "--shard", "t4", "--out", "../first",
                         "--resume", "../first", "--max-turns", "5")  # fmt: skip

    assert again.returncode == 0, again.stderr
    t4 = _task(tmp_path / "first", "t4")
    assert t4["status"] == "success"
    assert t4["resume"]["resumed_from"] == str(tmp_path / "first.prev" / "fix" / "t4")
