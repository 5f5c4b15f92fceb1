"""``budget.daily_usd``: runs that share a ledger file share one day's spending.

Through the real CLI, as separate processes, and the real google-genai SDK against the fake
Gemini server. gemini-2.5-flash: $0.30 per million prompt tokens, $2.50 per million output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from e2e_scenario import make_case

from agentci.testing.cli import agentci
from agentci.testing.fake_gemini import FakeGemini

FAST = {"initial_delay_seconds": 0, "max_delay_seconds": 0}
# a call that costs $0.0003 + $0.00875 = $0.00905 of the $0.01 a day: no room for another
COSTLY = {"text": "done", "usage": {"prompt": 1000, "output": 3500}}


def _case(root: Path, ledger: Path, **budget: Any):
    recipe = {
        "model": {"name": "gemini-2.5-flash", "retry": FAST},
        "allow_no_changes": True,
        "budget": {"daily_usd": 0.01, "ledger": str(ledger), **budget},
    }
    return make_case(root, None, recipe)


def _result(out: Path) -> dict[str, Any]:
    return json.loads((out / "result.json").read_text())


def _exhausted(out: Path) -> dict[str, Any]:
    lines = (out / "events.jsonl").read_text().splitlines()
    (event,) = [e for e in map(json.loads, lines) if e["type"] == "budget_exhausted"]
    return event


def test_two_runs_at_once_with_room_for_one_call_make_exactly_one(tmp_path: Path):
    ledger = tmp_path / "ledger.sqlite"
    cases = [_case(tmp_path / name, ledger) for name in ("one", "two")]
    with FakeGemini([COSTLY, COSTLY]) as fake:
        procs = [c.popen(env=fake.env()) for c in cases]
        codes = [p.wait(timeout=300) for p in procs]
        for p in procs:
            p.communicate()
        requests = len(fake.generate_requests)
    assert requests == 1
    statuses = sorted(_result(c.out)["status"] for c in cases)
    assert statuses == ["budget_exhausted", "no_changes"]
    assert sorted(codes) == [0, 3]
    (stopped,) = [c for c in cases if _result(c.out)["status"] == "budget_exhausted"]
    assert _result(stopped.out)["usage"]["model_calls"] == 0
    assert _exhausted(stopped.out)["limit"] == "daily_usd"


def test_a_run_against_a_spent_ledger_makes_no_model_call(tmp_path: Path):
    ledger = tmp_path / "ledger.sqlite"
    with FakeGemini([COSTLY, COSTLY]) as fake:
        first = _case(tmp_path / "first", ledger).run(env=fake.env())
        assert first.code == 0, first.stderr
        assert len(fake.generate_requests) == 1
        second = _case(tmp_path / "second", ledger).run(env=fake.env())
        assert len(fake.generate_requests) == 1
    assert second.code == 3, second.stderr
    assert second.result["status"] == "budget_exhausted"
    assert second.result["usage"]["model_calls"] == 0
    event = _exhausted(second.out)
    assert event["limit"] == "daily_usd"
    assert event["cap"] == 0.01 and abs(event["used"] - 0.00905) < 1e-9


def test_per_workflow_usd_counts_only_the_runs_of_that_workflow(tmp_path: Path):
    ledger = tmp_path / "ledger.sqlite"
    with FakeGemini([COSTLY, COSTLY, COSTLY]) as fake:
        a = _case(tmp_path / "a", ledger, daily_usd=1, per_workflow_usd=0.01)
        assert a.run(env={**fake.env(), "GITHUB_WORKFLOW": "nightly"}).code == 0
        b = _case(tmp_path / "b", ledger, daily_usd=1, per_workflow_usd=0.01)
        other = b.run(env={**fake.env(), "GITHUB_WORKFLOW": "review"})
        c = _case(tmp_path / "c", ledger, daily_usd=1, per_workflow_usd=0.01)
        again = c.run(env={**fake.env(), "GITHUB_WORKFLOW": "nightly"})
        requests = len(fake.generate_requests)
    assert other.code == 0, other.stderr
    assert again.code == 3 and _exhausted(again.out)["limit"] == "per_workflow_usd"
    assert requests == 2


def test_a_batch_of_two_tasks_with_room_for_one_call_makes_exactly_one(tmp_path: Path):
    ledger = tmp_path / "ledger.sqlite"
    tasks = [{"name": "one", "prompt": "Look."}, {"name": "two", "prompt": "Look too."}]
    case = _case(tmp_path, ledger)
    recipe = yaml.safe_load(case.recipe.read_text())
    case.recipe.write_text(yaml.safe_dump({**recipe, "tasks": tasks}))
    with FakeGemini([COSTLY, COSTLY]) as fake:
        done = agentci("batch", str(case.recipe), "--jobs", "2", "--out", str(case.out), "-q",
                       cwd=case.repo, env=fake.env())  # fmt: skip
        requests = len(fake.generate_requests)
    assert requests == 1
    assert done.returncode == 3, done.stderr  # the worst task's: the one the ledger stopped
    results = {name: _result(case.out / "case" / name) for name in ("one", "two")}
    assert sorted(r["status"] for r in results.values()) == ["budget_exhausted", "no_changes"]
    (stopped,) = [name for name, r in results.items() if r["status"] == "budget_exhausted"]
    assert _result(case.out / "case" / stopped)["usage"]["model_calls"] == 0
    assert _exhausted(case.out / "case" / stopped)["limit"] == "daily_usd"
