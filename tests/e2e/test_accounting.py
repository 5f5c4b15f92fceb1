"""One model call is the unit of accounting: every request the API may bill is counted.

Through the real CLI and the real google-genai SDK against the fake Gemini server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_scenario import assert_agree, make_case

from agentci.events import types as ev
from agentci.testing.fake_gemini import FakeGemini

FAST = {"initial_delay_seconds": 0, "max_delay_seconds": 0}


def usage(prompt: int, output: int = 0, thoughts: int = 0) -> dict[str, int]:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": prompt + output + thoughts,
    }


def text_chunk(text: str, **extra: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}], **extra}


def gemini_case(tmp_path: Path, recipe: dict[str, Any]):
    model = {"name": "gemini-2.5-flash", "retry": FAST, **recipe.pop("model", {})}
    return make_case(tmp_path, None, {"model": model, "allow_no_changes": True, **recipe})


def test_every_attempt_of_a_turn_is_counted(tmp_path: Path) -> None:
    turns = [
        # a stream cut after it had reported usage: billed, so counted
        {"chunks": [text_chunk("Work", usageMetadata=usage(1000, 5))], "cut_after": 1},
        # an empty reply (retried with a nudge): billed too
        {"text": "", "usage": {"prompt": 1100, "output": 1}},
        {"text": "done", "usage": {"prompt": 1200, "output": 7}},
    ]
    with FakeGemini(turns) as fake:
        run = gemini_case(tmp_path, {}).run(env=fake.env())
        requests = len(fake.generate_requests)
    assert_agree(run, "no_changes", 0)
    assert requests == 3
    used = run.result["usage"]
    assert used["model_calls"] == 3
    assert (used["prompt_tokens"], used["output_tokens"]) == (3300, 13)
    assert used["total_tokens"] == 3313
    calls = [e for e in run.events if isinstance(e, ev.Usage)]
    assert [c.prompt_tokens for c in calls] == [1000, 1100, 1200]
    assert calls[-1].totals.model_calls == 3
    assert run.result["tasks"][0]["turns"] == 1


def test_the_budget_is_checked_before_every_attempt(tmp_path: Path) -> None:
    turns = [
        {"chunks": [text_chunk("Work", usageMetadata=usage(19_500, 100))], "cut_after": 1},
        {"text": "never asked for"},
    ]
    with FakeGemini(turns) as fake:
        run = gemini_case(tmp_path, {"budget": {"max_tokens": 20_000}}).run(env=fake.env())
        requests = len(fake.generate_requests)
    assert_agree(run, "budget_exhausted", 3)
    assert requests == 1  # the retry was not sent: the budget could not pay for it
    (event,) = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert (event.limit, event.used, event.cap) == ("max_tokens", 19_600, 20_000)
    assert run.result["usage"]["model_calls"] == 1


def test_a_clamped_call_limits_thinking_and_ends_budget_exhausted(tmp_path: Path) -> None:
    # the model thinks until the output limit, again and again (no text: an unusable reply)
    thinking = {"thought": "hmm", "finish_reason": "MAX_TOKENS"}
    turns = [{**thinking, "usage": {"prompt": 4000, "thoughts": 15_000}}] * 4
    with FakeGemini(turns) as fake:
        run = gemini_case(tmp_path, {"budget": {"max_tokens": 20_000}}).run(env=fake.env())
        sent = fake.generate_requests
    assert_agree(run, "budget_exhausted", 3)  # not provider_error after empty-reply retries
    config = sent[0].body["generationConfig"]
    assert config["maxOutputTokens"] < 20_000
    assert 0 < config["thinkingConfig"]["thinkingBudget"] <= config["maxOutputTokens"] // 2
    assert len(sent) == 1


def test_a_fallback_is_billed_at_its_own_price(tmp_path: Path) -> None:
    free = {"input_per_mtok": 0, "output_per_mtok": 0}
    recipe = {"model": {"pricing": free, "fallback": ["gemini-2.5-pro"]}}
    turns = [
        {"error": {"code": 429, "quota": "daily"}},
        {"text": "done", "usage": {"prompt": 100_000, "output": 0}},
    ]
    with FakeGemini(turns) as fake:
        run = gemini_case(tmp_path, recipe).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    assert run.result["usage"]["cost_usd"] == 0.125  # gemini-2.5-pro: $1.25 per million input
    assert run.result["usage"]["model_calls"] == 2  # the refused request was sent, and counted


def test_an_unpriced_fallback_is_refused_when_a_cost_cap_is_set(tmp_path: Path) -> None:
    pricing = {"input_per_mtok": 1, "output_per_mtok": 1}
    recipe = {
        "model": {"pricing": pricing, "fallback": ["gemini-0-unknown"]},
        "budget": {"max_cost_usd": 1},
    }
    run = gemini_case(tmp_path, recipe).run(env={"GEMINI_API_KEY": "x" * 10})
    assert_agree(run, "invalid_input", 2)
    assert "'gemini-0-unknown' has no known price" in run.stderr


def test_a_fallback_with_its_own_price_is_accepted(tmp_path: Path) -> None:
    pricing = {"input_per_mtok": 1, "output_per_mtok": 1}
    fallback = [{"name": "gemini-0-unknown", "pricing": pricing}]
    recipe = {"model": {"fallback": fallback}, "budget": {"max_cost_usd": 1}}
    with FakeGemini([{"text": "done", "usage": {"prompt": 10, "output": 1}}]) as fake:
        run = gemini_case(tmp_path, recipe).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
