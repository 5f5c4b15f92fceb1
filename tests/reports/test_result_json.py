"""result.json contents."""

from __future__ import annotations

import json
from pathlib import Path

from outputs_fixtures import run, task, verify

from agentci.outcome import Status
from agentci.reports.result import write_result
from agentci.usage import Usage as UsageTotals


def test_single_task(tmp_path: Path) -> None:
    t = task(
        summary="Fixed it.", turns=5, tool_calls=9, changed_files=["src/b.py", "src/a.py"],
        verify=[verify(False, []), verify(True, [("t::a", "passed", "")])],
        extra={"fixed": ["t::a"]},
    )  # fmt: skip
    write_result(tmp_path / "result.json", run(t))
    data = json.loads((tmp_path / "result.json").read_text())
    assert data["status"] == "success" and data["exit_code"] == 0
    assert data["summary"] == "Fixed it."
    assert data["usage"]["total_tokens"] == 1200 and data["cost_usd"] == 0.0123
    assert data["turns"] == 5 and data["tool_calls"] == 9
    assert data["changed_files"] == ["src/a.py", "src/b.py"]
    assert data["run_id"] == "run-123" and data["recipe"] == "recipes/fix.yaml"
    assert data["duration_ms"] == 4200
    (entry,) = data["tasks"]
    assert entry["verify"] == {"runs": 2, "passed": True, "counts": {"passed": 1}, "exit_code": 0}
    assert entry["extra"] == {"fixed": ["t::a"]}
    assert not [p for p in tmp_path.iterdir() if p.name != "result.json"]  # no temp left


def test_several_tasks_and_summed_usage(tmp_path: Path) -> None:
    a = task("a", summary="did a", changed_files=["x"])
    b = task("b", Status.budget_exhausted, 3, summary="did b", changed_files=["x", "y"])
    r = run(a, b)
    r.usage = UsageTotals()
    write_result(tmp_path / "r.json", r)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["status"] == "budget_exhausted" and data["exit_code"] == 3
    assert data["summary"] == "[a] did a\n\n[b] did b"
    assert data["changed_files"] == ["x", "y"]
    assert data["usage"]["total_tokens"] == 2400
    assert abs(data["cost_usd"] - 0.0246) < 1e-9
    assert [t["status"] for t in data["tasks"]] == ["success", "budget_exhausted"]


def test_odd_extra_does_not_raise(tmp_path: Path) -> None:
    t = task(extra={"path": Path("/x"), "set": {1}})
    write_result(tmp_path / "r.json", run(t))
    assert json.loads((tmp_path / "r.json").read_text())["tasks"][0]["extra"]["path"] == "/x"
