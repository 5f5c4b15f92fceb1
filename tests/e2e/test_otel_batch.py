"""OpenTelemetry spans of ``agentci batch`` and of a shard: one run span, a task span per task.

The tasks of a batch run concurrently in one process, each with its own event log; their
spans must still nest under their own task (never a neighbour's) and all under one run span,
the child of ``TRACEPARENT``. Real ``agentci`` processes with the in-memory exporter
(tests/otel_spans.py), scripted models, the four-task repository of batch_scenario.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from batch_scenario import ENV, make_batch
from otel_spans import run_with_memory_exporter

pytest.importorskip(
    "opentelemetry.sdk", reason="the otel extra (agentci-runner[otel]) is not installed"
)

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
ENVIRON = {**ENV, "TRACEPARENT": f"00-{TRACE}-{PARENT}-01"}


def _tree(spans: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The one run span, and each task span by its task's name; every span in TRACE, every
    turn and model call under the task whose events made it."""
    assert {s["trace"] for s in spans} == {TRACE}
    (run,) = [s for s in spans if s["name"] == "agentci.run"]
    tasks = {s["attrs"]["agentci.task"]: s for s in spans if s["name"].startswith("agentci.task")}
    by_id = {s["id"]: s for s in spans}
    for s in spans:
        if s["name"] in ("agentci.turn", "execute_tool write_file") or s["name"].startswith("chat"):
            task = s
            while not task["name"].startswith("agentci.task"):
                task = by_id[task["parent"]]
            name = task["attrs"]["agentci.task"]
            model = s["attrs"].get("gen_ai.request.model")
            assert model in (None, f"scripted:{name}.yaml"), (name, s)  # its own task's call
    return run, tasks


def test_a_batch_is_one_run_span_with_a_task_span_per_task(tmp_path: Path):
    case = make_batch(tmp_path, verify=False, t4_turns=None)
    out = tmp_path / "out"
    done, data = run_with_memory_exporter(
        ["batch", str(case.recipe), "--jobs", "4", "--out", str(out), "--otel", "-q"],
        cwd=case.repo, env=ENVIRON, dump=tmp_path / "spans.json",
    )  # fmt: skip
    assert data["code"] == 0, done.stderr
    run, tasks = _tree(data["spans"])
    assert run["parent"] == PARENT
    assert run["attrs"]["agentci.batch.tasks"] == 4
    assert run["attrs"]["agentci.recipe"] == ["fix"]
    assert (run["attrs"]["agentci.status"], run["attrs"]["agentci.exit_code"]) == ("success", 0)
    assert sorted(tasks) == ["t1", "t2", "t3", "t4"]
    assert {t["parent"] for t in tasks.values()} == {run["id"]}
    assert {t["attrs"]["agentci.status"] for t in tasks.values()} == {"success"}
    turns = [s for s in data["spans"] if s["name"] == "agentci.turn"]
    assert sorted(t["parent"] for t in turns) == sorted([t["id"] for t in tasks.values()] * 2)


def test_a_shard_is_one_run_span_with_its_tasks(tmp_path: Path):
    case = make_batch(tmp_path, verify=False, t4_turns=None)
    done, data = run_with_memory_exporter(
        ["run", str(case.recipe), "--shard", "2/2", "--out", str(tmp_path / "out"), "--otel"],
        cwd=case.repo, env=ENVIRON, dump=tmp_path / "spans.json",
    )  # fmt: skip
    assert data["code"] == 0, done.stderr
    run, tasks = _tree(data["spans"])
    assert run["parent"] == PARENT
    assert sorted(tasks) == ["t2", "t4"]  # round robin: the second of every two
    assert {t["parent"] for t in tasks.values()} == {run["id"]}
