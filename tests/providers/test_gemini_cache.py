"""GeminiProvider with ``model.cache: explicit`` through the real google-genai SDK against
fake_gemini's ``cachedContents``: when a cache is made, what a request then carries, when
the cache is renewed, replaced and deleted, and what happens when the API refuses it."""

from __future__ import annotations

import asyncio
from typing import Any

from gemini_helpers import TOOLS, Sleeps, model_config, run

from agentci.loop.chat import Chat
from agentci.providers.base import Message, ModelRequest, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.gemini import GeminiProvider
from agentci.providers.gemini_cache import ExplicitCache
from agentci.testing.fake_caches import tokens_of
from agentci.testing.fake_gemini import FakeGemini

SYSTEM = "You fix bugs. " * 400  # ~5600 characters: above gemini-2.5-flash's 1024 tokens
CALL = {"name": "read_file", "args": {"file_path": "a.py"}, "id": "c1"}


class Clock:
    """A clock the test moves (the cache's TTL is judged by it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _chat(fake: FakeGemini, raw_path: bool, clock: Clock | None = None) -> Chat:
    cfg = model_config(cache="explicit")
    provider = GeminiProvider.from_config(cfg, fake.env())
    provider.raw_path = raw_path
    if clock is not None:
        provider.cache = ExplicitCache(cfg.cache_ttl_seconds, clock=clock)
    return Chat(provider, cfg, sleep=Sleeps())


def _conversation(rounds: int) -> list[Message]:
    """A prompt, then ``rounds`` of (the model's call, its result)."""
    messages = [Message("user", [TextPart("fix a.py")])]
    for i in range(rounds):
        messages.append(Message("model", [ToolCallPart(f"c{i}", "read_file", {"file_path": "a.py"})]))  # fmt: skip
        messages.append(Message("user", [ToolResultPart(f"c{i}", "read_file", f"x = {i}")]))
    return messages


def _ask(chat: Chat, messages: list[Message], tools: Any = TOOLS) -> Any:
    result = run(chat, ModelRequest("ignored", SYSTEM, list(messages), tools))
    assert result.error is None, result.error
    return result


def _close(chat: Chat) -> list[Any]:
    provider = chat.provider
    assert isinstance(provider, GeminiProvider)
    return asyncio.run(provider.aclose())


def test_the_second_call_makes_the_cache_and_later_calls_send_only_the_rest(raw_path: bool):
    with FakeGemini([{"function_calls": [CALL]}] * 2 + [{"text": "done"}]) as fake:
        chat = _chat(fake, raw_path)
        messages = _conversation(2)
        _ask(chat, messages[:1])  # one message: nothing worth caching yet
        second = _ask(chat, messages[:3])
        third = _ask(chat, messages)
        assert fake.caches.live == ["cachedContents/fake1"]
        assert _close(chat) == []
        caches = fake.caches
        bodies = [r.body for r in fake.generate_requests]
    assert (caches.created, caches.deleted, caches.live) == (1, 1, [])
    (created,) = caches.bodies
    assert created["contents"] == bodies[0]["contents"] + [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "read_file", "args": {"file_path": "a.py"}, "id": "c0"}}
            ],
        }  # fmt: skip
    ]
    assert created["systemInstruction"]["parts"][0]["text"] == SYSTEM
    assert "cachedContent" not in bodies[0]
    assert [b.get("cachedContent") for b in bodies[1:]] == ["cachedContents/fake1"] * 2
    assert all("systemInstruction" not in b and "tools" not in b for b in bodies[1:])
    assert bodies[1]["contents"] == [
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "read_file",
                        "response": {"output": "x = 0"},
                        "id": "c0",
                    }
                }
            ],
        }  # fmt: skip
    ]
    assert len(bodies[2]["contents"]) == 3  # after the two cached messages
    usage = [c.usage for c in second.chunks if c.usage][-1]
    tokens = tokens_of(created)
    assert (usage.cached_tokens, usage.cache_write_tokens) == (tokens, tokens)  # written once
    later = [c.usage for c in third.chunks if c.usage][-1]
    assert (later.cached_tokens, later.cache_write_tokens) == (tokens, 0)


def test_a_rewritten_history_replaces_the_cache(raw_path: bool):
    with FakeGemini([{"function_calls": [CALL]}] * 3) as fake:
        chat = _chat(fake, raw_path)
        messages = _conversation(2)
        _ask(chat, messages[:3])
        assert fake.caches.live == ["cachedContents/fake1"]
        # compression: the history now starts with a summary, not the cached messages
        summary = [Message("user", [TextPart("<state_snapshot>read a.py</state_snapshot>")])]
        rewritten = summary + _conversation(1)[1:]
        _ask(chat, rewritten)
        assert fake.caches.live == ["cachedContents/fake2"]
        assert fake.caches.deleted == 1
        _close(chat)
        bodies = [r.body for r in fake.generate_requests]
        assert fake.caches.live == []
    assert bodies[-1]["cachedContent"] == "cachedContents/fake2"
    assert fake.caches.bodies[-1]["contents"][0]["parts"][0]["text"].startswith("<state_snapshot>")


def test_calls_without_tools_leave_the_conversation_cache_alone(raw_path: bool):
    with FakeGemini([{"function_calls": [CALL]}, {"text": "summary"}, {"text": "done"}]) as fake:
        chat = _chat(fake, raw_path)
        messages = _conversation(1)
        _ask(chat, messages)
        _ask(chat, messages, tools=[])  # the compression summary's kind of call
        _ask(chat, messages + [Message("model", [TextPart("ok")]), Message("user", [TextPart("go on")])])  # fmt: skip
        _close(chat)
        bodies = [r.body for r in fake.generate_requests]
        caches = fake.caches
    assert "cachedContent" not in bodies[1] and "systemInstruction" in bodies[1]
    assert bodies[2]["cachedContent"] == "cachedContents/fake1"
    assert (caches.created, caches.deleted) == (1, 1)


def test_the_ttl_is_renewed_when_half_of_it_is_spent(raw_path: bool):
    clock = Clock()
    with FakeGemini([{"function_calls": [CALL]}] * 3) as fake:
        chat = _chat(fake, raw_path, clock)
        messages = _conversation(2)
        _ask(chat, messages[:3])
        clock.now += 200  # 400 s of 600 left: no renewal
        _ask(chat, messages[:4] + [Message("user", [TextPart("more")])])
        clock.now += 150  # 250 s left: renewed
        _ask(chat, messages)
        _close(chat)
        patches = [r for r in fake.requests if r.method == "PATCH"]
        caches = fake.caches
    assert [(r.path, r.body) for r in patches] == [
        ("/v1beta/cachedContents/fake1", {"ttl": "600s"})
    ]
    assert (caches.created, caches.deleted) == (1, 1)


def test_a_cache_the_api_no_longer_has_is_dropped_and_the_call_retried_without_it(
    raw_path: bool,
):
    with FakeGemini([{"function_calls": [CALL]}, {"text": "done"}]) as fake:
        chat = _chat(fake, raw_path)
        messages = _conversation(2)
        _ask(chat, messages[:3])
        fake.caches.handle("DELETE", "fake1", {})  # gone behind agentci's back
        result = _ask(chat, messages)
        bodies = [r.body for r in fake.requests if r.action == "streamGenerateContent"]
        assert _close(chat) == []
    (warning,) = result.events("warning")
    assert warning.kind == "explicit_cache_unavailable"
    assert "cachedContents/fake1" in warning.message
    assert bodies[-2]["cachedContent"] == "cachedContents/fake1"  # refused (403)
    assert "cachedContent" not in bodies[-1] and "systemInstruction" in bodies[-1]
    assert result.final_parts() == [TextPart("done")]


def test_a_cache_too_small_for_the_model_is_not_asked_for(raw_path: bool):
    with FakeGemini([{"function_calls": [CALL]}]) as fake:
        chat = _chat(fake, raw_path)
        result = run(chat, ModelRequest("ignored", "Be brief.", _conversation(1), TOOLS))
        assert result.error is None
        assert fake.caches.bodies == []
    assert "cachedContent" not in fake.generate_requests[0].body
