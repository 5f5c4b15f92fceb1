"""The model-judged loop check through the real SDK and the fake Gemini server: the judge's
request as the server sees it, its verdict, and its tokens in every total and budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e_scenario import assert_agree, make_case

from agentci.events import types as ev
from agentci.providers.pricing import cost_for
from agentci.testing.cli import agentci
from agentci.testing.fake_gemini import FakeGemini
from agentci.usage import Usage

JUDGE = "gemini-2.5-flash-lite"
FILES = {"README.md": "# p\n", "a.txt": "alpha\n", "b.txt": "beta\n"}


def recipe(**check: Any) -> dict[str, Any]:
    return {
        "model": {
            "name": "gemini-2.5-flash",
            "retry": {"attempts": 2, "initial_delay_seconds": 0.01, "max_delay_seconds": 0.02},
        },
        "loop_detection": {"model_check": {"enabled": True, "model": JUDGE, **check}},
        "allow_no_changes": True,
    }


def read(path: str) -> dict[str, Any]:
    call = {"name": "read_file", "args": {"file_path": path}}
    return {"function_calls": [call], "usage": {"prompt": 100, "output": 10}}


def verdict(confidence: float, prompt: int = 500) -> dict[str, Any]:
    text = json.dumps({"analysis": "it reads the same two files again", "confidence": confidence})
    return {"text": text, "usage": {"prompt": prompt, "output": 20}}


DONE = {"text": "Done.", "usage": {"prompt": 100, "output": 10}}


def test_a_confident_verdict_nudges_the_model_and_the_judge_is_paid_for(tmp_path: Path):
    case = make_case(tmp_path, None, recipe(after_turns=2, every_turns=2), FILES)
    turns = [read("a.txt"), read("b.txt"), verdict(0.95), read("a.txt"), DONE]
    with FakeGemini(turns) as fake:
        run = case.run(env=fake.env())
        sent = fake.generate_requests
    assert_agree(run, "no_changes", 0)
    assert [r.model for r in sent] == ["gemini-2.5-flash"] * 2 + [JUDGE] + ["gemini-2.5-flash"] * 2

    judge = sent[2].body
    assert "stuck in an unproductive loop" in judge["systemInstruction"]["parts"][0]["text"]
    assert "tools" not in judge
    asked = judge["contents"][0]["parts"][0]["text"]
    assert "<task>\nDo the work.\n</task>" in asked
    assert '[AGENT calls read_file] {"file_path": "b.txt"}' in asked
    assert "[RESULT of read_file]" in asked and "beta" in asked

    nudge = sent[3].body["contents"][-1]["parts"][-1]["text"]
    assert nudge.startswith("agentci: you are repeating the same step without progress")
    loops = [e for e in run.events if isinstance(e, ev.LoopDetectedEvent)]
    assert [(e.kind, e.recovering) for e in loops] == [("model_judged", True)]
    assert "confidence 0.95" in loops[0].detail

    usage = run.result["usage"]
    assert (usage["prompt_tokens"], usage["output_tokens"], usage["model_calls"]) == (900, 60, 5)
    main = cost_for("gemini-2.5-flash", Usage(prompt_tokens=400, output_tokens=40), None)
    lite = cost_for(JUDGE, Usage(prompt_tokens=500, output_tokens=20), None)
    assert main is not None and lite is not None
    assert run.result["cost_usd"] == round(main + lite, 8)
    judged = [e for e in run.events if isinstance(e, ev.Usage) and e.model == JUDGE]
    assert [(e.prompt_tokens, e.output_tokens) for e in judged] == [(500, 20)]


def test_a_verdict_below_the_threshold_changes_nothing(tmp_path: Path):
    case = make_case(tmp_path, None, recipe(after_turns=1, every_turns=5), FILES)
    with FakeGemini([read("a.txt"), verdict(0.89), DONE]) as fake:
        run = case.run(env=fake.env())
        last = fake.generate_requests[-1].body["contents"][-1]["parts"]
    assert_agree(run, "no_changes", 0)
    assert not [e for e in run.events if isinstance(e, ev.LoopDetectedEvent)]
    assert [list(p) for p in last] == [["functionResponse"]]  # the tool result, no nudge


def test_a_second_confident_verdict_stops_the_task(tmp_path: Path):
    case = make_case(tmp_path, None, recipe(after_turns=1, every_turns=1), FILES)
    turns = [read("a.txt"), verdict(0.97), read("b.txt"), verdict(0.99)]
    with FakeGemini(turns) as fake:
        run = case.run(env=fake.env())
        sent = len(fake.generate_requests)
    assert_agree(run, "loop_detected", 4)
    assert sent == 4
    loops = [e for e in run.events if isinstance(e, ev.LoopDetectedEvent)]
    assert [(e.kind, e.recovering) for e in loops] == [
        ("model_judged", True), ("model_judged", False),
    ]  # fmt: skip


def test_the_judges_tokens_count_toward_the_token_budget(tmp_path: Path):
    """Two turns use 220 tokens; the judge reports 10,000 more: the next call no longer fits
    the 10,600-token budget. Without the judge's tokens the task would finish."""
    budget = {**recipe(after_turns=2, every_turns=5), "budget": {"max_tokens": 10_600}}
    case = make_case(tmp_path, None, budget, FILES)
    turns = [read("a.txt"), read("b.txt"), verdict(0.1, prompt=10_000), DONE]
    with FakeGemini(turns) as fake:
        run = case.run(env=fake.env())
        sent = len(fake.generate_requests)
    assert_agree(run, "budget_exhausted", 3)
    assert sent == 3
    stop = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert [(e.limit, e.used) for e in stop] == [("max_tokens", 10_240)]


def test_a_cost_budget_needs_a_price_for_the_judge(tmp_path: Path):
    data = recipe()
    data["loop_detection"]["model_check"]["model"] = "gemini-1.0-pro"
    data["budget"] = {"max_cost_usd": 1.0}
    case = make_case(tmp_path, None, data, FILES)
    with FakeGemini([]) as fake:
        run = case.run(env=fake.env())
        sent = len(fake.generate_requests)
    assert run.code == 2 and sent == 0
    assert "'gemini-1.0-pro' has no known price" in run.stderr


def test_a_judge_that_fails_is_reported_and_not_asked_again(tmp_path: Path):
    case = make_case(tmp_path, None, recipe(after_turns=1, every_turns=1), FILES)
    turns = [read("a.txt"), {"error": {"code": 404}}, read("b.txt"), DONE]
    with FakeGemini(turns) as fake:
        run = case.run(env={**fake.env(), "GITHUB_ACTIONS": "true"})
        models = [r.model for r in fake.generate_requests]
    assert_agree(run, "no_changes", 0)
    assert models == ["gemini-2.5-flash", JUDGE, "gemini-2.5-flash", "gemini-2.5-flash"]
    failed = [
        e for e in run.events if isinstance(e, ev.WarningEvent) and e.kind == "loop_check_failed"
    ]
    assert len(failed) == 1 and "off for this task" in failed[0].message
    warnings = [line for line in run.stdout.splitlines() if line.startswith("::warning")]
    warnings = [w for w in warnings if "without a sandbox" not in w]  # sandbox: none + a key
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "::warning title=agentci::agentci model-judged loop check failed: the model-judged "
        "loop check failed and is off for this task: "
    )


def test_a_judge_model_agentci_cannot_serve_is_bad_input(tmp_path: Path):
    data = recipe()
    data["loop_detection"]["model_check"]["model"] = "gpt-4o"
    case = make_case(tmp_path, None, data, FILES)
    done = agentci("validate", str(case.recipe))
    assert done.returncode == 2
    assert (
        "loop_detection.model_check.model: 'gpt-4o' is not a model the judge can use" in done.stderr
    )
