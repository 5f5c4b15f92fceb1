"""``model.cache: explicit``: agentci makes a Gemini context cache of the stable prefix, sends
the rest with ``cachedContent``, counts what it saved and what it cost, and deletes the cache
however the task ends (success, budget, SIGTERM); a cache the API refuses is a warning.

Through the real CLI and the real google-genai SDK against the fake Gemini server, which
serves ``cachedContents`` and counts creates and deletes (agentci.testing.fake_caches).
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_scenario import assert_agree, jsonl_lines, make_case, wait_for

from agentci.providers.pricing import cost_for
from agentci.testing.fake_caches import tokens_of
from agentci.testing.fake_gemini import FakeGemini
from agentci.usage import Usage

DOC = Path(__file__).parents[2] / "docs" / "gemini.md"
FAST = {"initial_delay_seconds": 0, "max_delay_seconds": 0}
FILES = {"a.txt": "alpha\n", "b.txt": "beta\n"}
MODEL = "gemini-2.5-flash"
MIN_TOKENS = 1024  # the smallest cache the API accepts for gemini-2.5-flash


def _call(name: str, cid: str, **args: Any) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args, "id": cid}]}


TURNS: list[dict[str, Any]] = [
    _call("read_file", "c1", file_path="a.txt"),
    _call("list_directory", "c2", dir_path="."),
    _call("read_file", "c3", file_path="b.txt"),
    {"text": "a says alpha, b says beta."},
]


def _case(tmp_path: Path, **extra: Any):
    model = {"name": MODEL, "retry": FAST, "cache": "explicit"}
    return make_case(tmp_path, None, {"model": model, "allow_no_changes": True, **extra}, FILES)


def _fake(turns: list[Any], **options: Any) -> FakeGemini:
    return FakeGemini(turns, min_cache_tokens=MIN_TOKENS, **options)


def test_a_tool_session_creates_one_cache_uses_it_and_deletes_it(tmp_path: Path):
    with _fake(TURNS) as fake:
        run = _case(tmp_path).run(env=fake.env())
        bodies = [r.body for r in fake.generate_requests]
        caches = fake.caches
    assert_agree(run, "no_changes", 0)
    assert (caches.created, caches.deleted, caches.live) == (1, 1, [])
    (created,) = caches.bodies
    # the cache holds the system instruction, the tools and the conversation before call 2
    assert created["model"] == f"models/{MODEL}"
    assert created["ttl"] == "600s"
    assert created["systemInstruction"] == bodies[0]["systemInstruction"]
    declared = [d["name"] for d in bodies[0]["tools"][0]["functionDeclarations"]]
    assert [d["name"] for d in created["tools"][0]["functionDeclarations"]] == declared
    assert len(created["contents"]) == 2  # the prompt and the model's first call
    assert created["contents"][0] == bodies[0]["contents"][0]
    assert "cachedContent" not in bodies[0] and "systemInstruction" in bodies[0]
    for body in bodies[1:]:
        assert body["cachedContent"] == "cachedContents/fake1"
        assert "systemInstruction" not in body and "tools" not in body
    assert [len(b["contents"]) for b in bodies] == [1, 1, 3, 5]
    cache_tokens = tokens_of(created)
    used = run.result["usage"]
    assert used["cached_tokens"] == 3 * cache_tokens
    assert used["cache_hit_rate"] == round(3 * cache_tokens / used["prompt_tokens"], 4)
    assert used["cache_write_tokens"] == cache_tokens
    assert used["cache_storage_token_hours"] > 0
    (task,) = run.result["tasks"]
    assert task["usage"]["cached_tokens"] == 3 * cache_tokens


def test_the_cost_counts_the_cache_write_and_its_storage(tmp_path: Path):
    with _fake(TURNS) as fake:
        run = _case(tmp_path).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    used = run.result["usage"]
    tokens = {k: used[k] for k in ("prompt_tokens", "output_tokens", "cached_tokens")}
    cache = {k: used[k] for k in ("cache_write_tokens", "cache_storage_token_hours")}
    calls = cost_for(MODEL, Usage(**tokens))
    cache_cost = cost_for(MODEL, Usage(**cache))
    assert calls is not None and cache_cost is not None
    # written at the input price ($0.30/Mtok), stored at $1.00/Mtok/hour
    assert cache_cost == pytest.approx(
        (cache["cache_write_tokens"] * 0.30 + cache["cache_storage_token_hours"] * 1.00) / 1e6,
        abs=1e-8,
    )
    assert run.result["cost_usd"] == pytest.approx(calls + cache_cost, abs=1e-7)


def test_a_budget_stop_deletes_the_cache(tmp_path: Path):
    with _fake(TURNS) as fake:
        run = _case(tmp_path, budget={"max_turns": 2}).run(env=fake.env())
        caches = fake.caches
    assert_agree(run, "budget_exhausted", 3)
    assert (caches.created, caches.deleted, caches.live) == (1, 1, [])
    assert run.result["usage"]["cached_tokens"] > 0


def test_sigterm_mid_model_call_deletes_the_cache(tmp_path: Path):
    turns = [*TURNS[:2], {"text": "never sent", "stall_after": 0, "stall_seconds": 60}]
    with _fake(turns) as fake:
        case = _case(tmp_path)
        proc = case.popen("-q", env=fake.env())
        wait_for(lambda: len(fake.generate_requests) >= 3, timeout=60, what="the third call")
        assert fake.caches.live == ["cachedContents/fake1"]
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        caches = fake.caches
    assert code == 143
    assert (caches.created, caches.deleted, caches.live) == (1, 1, [])
    last = jsonl_lines(case.out / "events.jsonl")[-1]
    assert (last["type"], last["status"]) == ("run_finished", "cancelled")


def test_a_refused_cache_is_a_warning_and_the_task_goes_on_without_it(tmp_path: Path):
    refusal = {"code": 400, "message": "Model gemini-2.5-flash does not support caching"}
    with _fake(TURNS, create_error=refusal) as fake:
        run = _case(tmp_path).run(env=fake.env())
        bodies = [r.body for r in fake.generate_requests]
        caches = fake.caches
    assert_agree(run, "no_changes", 0)
    assert (len(caches.bodies), caches.created) == (1, 0)  # tried once, not on every call
    assert all("cachedContent" not in b and "systemInstruction" in b for b in bodies)
    (warning,) = [e for e in run.events if e.type == "warning" and "cache" in e.kind]
    assert warning.kind == "explicit_cache_unavailable"
    assert "does not support caching" in warning.message
    assert "implicit caching" in warning.message
    assert run.result["usage"]["cached_tokens"] == 0


def test_an_openai_compatible_model_with_explicit_cache_is_refused_before_any_call(
    tmp_path: Path,
):
    model = {"name": "openai:gpt-4o", "cache": "explicit", "base_url": "http://127.0.0.1:9"}
    case = make_case(tmp_path, None, {"model": model}, FILES)
    run = case.run(env={"OPENAI_API_KEY": "sk-test"})
    assert run.code == 2
    lines = case.recipe.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "cache: explicit" in text)
    assert (
        f"{case.recipe}:{line}: model.cache: 'explicit' is Gemini's context caching; "
        "openai models ('openai:gpt-4o') cannot use it"
    ) in run.stderr
    assert "remove model.cache or set it to implicit" in run.stderr


def _doc_recipe() -> dict[str, Any]:
    """The recipe docs/gemini.md shows for ``model.cache: explicit``."""
    text = DOC.read_text()
    start = text.index("```yaml\nversion: 1\nname: fix-tests-cached\n") + len("```yaml\n")
    return yaml.safe_load(text[start : text.index("```", start)])


def test_the_recipe_in_docs_gemini_md_caches_and_cleans_up(tmp_path: Path):
    recipe = _doc_recipe()
    assert recipe["model"]["cache"] == "explicit"
    turns = [_call("read_file", "c1", file_path="a.txt"),
             {"function_calls": [{"name": "write_file", "id": "c2",
                                  "args": {"file_path": "a.txt", "content": "alpha!\n"}}]},
             {"text": "Fixed."}]  # fmt: skip
    with _fake(turns) as fake:
        run = make_case(tmp_path, None, recipe, FILES).run(env=fake.env())
        caches = fake.caches
    assert_agree(run, "success", 0)
    assert (caches.created, caches.deleted, caches.live, caches.used) == (1, 1, [], 2)
    assert caches.bodies[0]["ttl"] == f"{recipe['model']['cache_ttl_seconds']}s"
    assert run.result["usage"]["cached_tokens"] == 2 * tokens_of(caches.bodies[0])
