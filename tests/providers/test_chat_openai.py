"""Chat + OpenAIProvider through the real ``openai`` package against fake_openai over HTTP."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from gemini_helpers import Sleeps, model_config, request, run

from agentci.errors import Blocked, BudgetExhausted, InvalidInput, ProviderFailed
from agentci.loop.chat import Chat
from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.openai_compat import OpenAIProvider
from agentci.recipe.model_config import RetryConfig
from agentci.testing.fake_openai import FakeOpenAI

READ = {"name": "read_file", "args": {"file_path": "a.py"}, "id": "call-1"}
GLOB = {"name": "glob", "args": {"pattern": "src/**/*.py"}, "id": "call-2"}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def make_chat(fake: FakeOpenAI, env: dict[str, str] | None = None, **kw: Any) -> Chat:
    kw.setdefault("name", "openai:gpt-test")
    cfg = model_config(**kw)
    provider = OpenAIProvider.from_config(cfg, fake.env() if env is None else env)
    return Chat(provider, cfg, sleep=Sleeps())


def delays(chat: Chat) -> list[float]:
    assert isinstance(chat._sleep, Sleeps)
    return chat._sleep.delays


def test_a_tool_session_streams_text_assembles_parallel_calls_and_sends_them_back(
    fake: FakeOpenAI,
) -> None:
    fake.add(
        {"thought": "Two files to look at", "text": "Reading.", "function_calls": [READ, GLOB],
         "usage": {"prompt": 100, "output": 20, "thoughts": 7, "cached": 50}},
        {"text": "The bug is fixed."},
    )  # fmt: skip
    chat = make_chat(fake, temperature=0.2)
    req = request("fix the bug")
    first = run(chat, req)
    assert first.error is None
    parts = first.final_parts()
    assert parts == [
        TextPart("Two files to look at", thought=True),
        TextPart("Reading."),
        ToolCallPart("call-1", "read_file", {"file_path": "a.py"}),
        ToolCallPart("call-2", "glob", {"pattern": "src/**/*.py"}),
    ]
    assert first.chunks[-1].finish_reason == "tool_calls"
    usage = [c.usage for c in first.chunks if c.usage][-1]
    assert (usage.prompt_tokens, usage.output_tokens) == (100, 20)
    assert (usage.thoughts_tokens, usage.cached_tokens, usage.estimated_calls) == (7, 50, 0)

    req.messages += [
        Message("model", parts),
        Message("user", [ToolResultPart("call-1", "read_file", "x = 1"),
                         ToolResultPart("call-2", "glob", "", error="no match")]),
    ]  # fmt: skip
    second = run(chat, req)
    assert second.error is None and second.final_parts() == [TextPart("The bug is fixed.")]
    assert second.chunks[-1].finish_reason == "stop"

    sent = fake.generate_requests[1]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer fake-key"
    body = sent.body
    assert body["model"] == "gpt-test"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.2
    assert "max_tokens" not in body and "max_completion_tokens" not in body
    assert body["tools"][0] == {
        "type": "function",
        "function": {"name": "read_file", "description": "Read a file", "parameters": {
            "type": "object", "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"]}},
    }  # fmt: skip
    assert body["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "fix the bug"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "call-1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"file_path": "a.py"}'}},
            {"id": "call-2", "type": "function",
             "function": {"name": "glob", "arguments": '{"pattern": "src/**/*.py"}'}}]},
        {"role": "tool", "tool_call_id": "call-1", "content": "x = 1"},
        {"role": "tool", "tool_call_id": "call-2", "content": "Error: no match"},
    ]  # fmt: skip


def test_reasoning_content_is_thinking_and_never_the_answer(fake: FakeOpenAI) -> None:
    fake.add({"thought": "secret plan", "text": "Done."})
    result = run(make_chat(fake), request("go"))
    answer = Message("model", result.final_parts())
    assert answer.text == "Done."
    assert TextPart("secret plan", thought=True) in answer.parts


def test_the_reasoning_field_of_other_servers_is_thinking_too(fake: FakeOpenAI) -> None:
    chunks = [
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning": "hmm"}}]},
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    fake.add({"chunks": chunks})
    result = run(make_chat(fake), request("go"))
    assert result.final_parts() == [TextPart("hmm", thought=True), TextPart("Hi")]


def test_a_server_that_reports_no_usage_gets_an_estimate_that_says_so(fake: FakeOpenAI) -> None:
    fake.add({"text": "x" * 400, "no_usage": True})
    result = run(make_chat(fake), request("y" * 4000))
    (usage,) = [c.usage for c in result.chunks if c.usage]
    assert usage.estimated_calls == 1
    assert usage.output_tokens == 100
    assert 1000 < usage.prompt_tokens < 1100  # the prompt's 4000 characters, system and tools


def test_calls_without_ids_get_stable_ids_that_the_tool_results_name(fake: FakeOpenAI) -> None:
    fake.add({"function_calls": [READ, GLOB], "no_ids": True}, {"text": "ok"})
    chat = make_chat(fake)
    req = request("go")
    calls = [p for p in run(chat, req).final_parts() if isinstance(p, ToolCallPart)]
    assert [c.id for c in calls] == ["call_agentci_1_0", "call_agentci_1_1"]
    req.messages += [Message("model", list(calls)),
                     Message("user", [ToolResultPart(c.id, c.name, "r") for c in calls])]  # fmt: skip
    assert run(chat, req).error is None
    sent = fake.generate_requests[1].body["messages"]
    assert [m.get("tool_call_id") for m in sent[-2:]] == ["call_agentci_1_0", "call_agentci_1_1"]
    assert "id" not in fake.generate_requests[0].body  # nothing of ours leaks into the request


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip


def test_a_server_reusing_index_0_for_each_call_gives_separate_calls(fake: FakeOpenAI) -> None:
    def call(cid: str, name: str, args: str) -> dict[str, Any]:
        fn = {"name": name, "arguments": args}
        return _chunk({"tool_calls": [{"index": 0, "id": cid, "type": "function", "function": fn}]})

    fake.add({"chunks": [call("a", "read_file", '{"file_path": "a.py"}'),
                         call("b", "read_file", '{"file_path": "b.py"}'),
                         _chunk({}, "tool_calls")]})  # fmt: skip
    parts = run(make_chat(fake), request("go")).final_parts()
    assert parts == [ToolCallPart("a", "read_file", {"file_path": "a.py"}),
                     ToolCallPart("b", "read_file", {"file_path": "b.py"})]  # fmt: skip


def test_a_call_with_arguments_that_are_not_json_is_retried_with_a_nudge(fake: FakeOpenAI) -> None:
    bad = _chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function",
                                  "function": {"name": "read_file", "arguments": '{"file_'}}]})  # fmt: skip
    fake.add({"chunks": [bad, _chunk({}, "tool_calls")]}, {"text": "recovered"})
    result = run(make_chat(fake), request("go"))
    assert result.error is None
    assert [e.reason for e in result.events("invalid_stream")] == [
        "finish reason malformed_call (tool_calls)"
    ]
    assert result.final_parts() == [TextPart("recovered")]
    nudged = fake.generate_requests[1].body["messages"][-1]["content"]
    assert nudged.startswith("go\n\nYour previous answer was empty or malformed")


def test_429_honours_retry_after(fake: FakeOpenAI) -> None:
    fake.add({"error": {"code": 429, "retry_after": 1.5}}, {"text": "ok"})
    chat = make_chat(fake, retry=RetryConfig(attempts=3, max_delay_seconds=10))
    result = run(chat, request("go"))
    assert result.error is None and result.final_parts() == [TextPart("ok")]
    assert delays(chat) == [1.5]
    assert [e.delay_seconds for e in result.events("retry")] == [1.5]


def test_429_honours_retry_after_ms(fake: FakeOpenAI) -> None:
    fake.add({"error": {"code": 429, "retry_delay": 0.25}}, {"text": "ok"})
    chat = make_chat(fake, retry=RetryConfig(attempts=3, max_delay_seconds=10))
    assert run(chat, request("go")).error is None
    assert delays(chat) == [0.25]


def test_500_is_retried_until_the_attempts_are_spent(fake: FakeOpenAI) -> None:
    fake.add(*[{"error": {"code": 500}}] * 3)
    result = run(make_chat(fake), request("go"))
    assert isinstance(result.error, ProviderFailed)
    assert "giving up after 3 attempts" in str(result.error)
    assert len(fake.generate_requests) == 3


@pytest.mark.parametrize("code", [401, 403])
def test_auth_errors_are_not_retried_and_name_the_key_variable(fake: FakeOpenAI, code: int) -> None:
    fake.add({"error": {"code": code}}, {"text": "never"})
    cfg = model_config(name="openai:gpt-test")
    provider = OpenAIProvider(api_key="k-123456", base_url=fake.api_base, key_var="MY_LLM_SECRET")
    result = run(Chat(provider, cfg, sleep=Sleeps()), request("go"))
    assert isinstance(result.error, ProviderFailed)
    assert f"HTTP {code}" in str(result.error) and "MY_LLM_SECRET" in str(result.error)
    assert "k-123456" not in str(result.error)
    assert len(fake.generate_requests) == 1
    assert fake.generate_requests[0].headers["authorization"] == "Bearer k-123456"


def test_a_cut_stream_mid_call_is_retried_without_the_partial_call(fake: FakeOpenAI) -> None:
    fake.add({"text": "Reading.", "function_calls": [READ], "cut_after": 4},
             {"text": "second try"})  # fmt: skip
    result = run(make_chat(fake), request("go"))
    assert result.error is None
    assert [e.type for e in result.items if hasattr(e, "type")][:1] == ["retry"]
    assert result.final_parts() == [TextPart("second try")]
    assert not any(isinstance(p, ToolCallPart) for c in result.chunks for p in c.parts)


def test_a_malformed_chunk_is_retried(fake: FakeOpenAI) -> None:
    fake.add({"text": "a", "malformed_after": 1}, {"text": "ok"})
    result = run(make_chat(fake), request("go"))
    assert result.error is None and result.final_parts() == [TextPart("ok")]
    assert len(result.events("retry")) == 1


def test_length_in_the_middle_of_a_call_drops_the_call_and_nudges(fake: FakeOpenAI) -> None:
    fake.add({"function_calls": [READ], "finish_reason": "MAX_TOKENS"}, {"text": "smaller"})
    result = run(make_chat(fake), request("go"))
    assert result.error is None and result.final_parts() == [TextPart("smaller")]
    assert (
        "reached the output token limit"
        in fake.generate_requests[1].body["messages"][-1]["content"]
    )


def test_a_call_whose_arguments_the_limit_cut_gets_the_limits_nudge(fake: FakeOpenAI) -> None:
    cut = _chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function",
                                  "function": {"name": "write_file", "arguments": '{"con'}}]})  # fmt: skip
    fake.add({"chunks": [cut, _chunk({}, "length")]}, {"text": "smaller"})
    result = run(make_chat(fake), request("go"))
    assert result.error is None and result.final_parts() == [TextPart("smaller")]
    assert (
        "reached the output token limit"
        in fake.generate_requests[1].body["messages"][-1]["content"]
    )


def test_thinking_cut_at_the_output_limit_is_budget_exhausted(fake: FakeOpenAI) -> None:
    fake.add({"thought": "t" * 50, "finish_reason": "MAX_TOKENS"})
    result = run(make_chat(fake, max_output_tokens=64), request("go"))
    assert isinstance(result.error, BudgetExhausted)
    assert len(fake.generate_requests) == 1


def test_content_filter_ends_the_task_blocked(fake: FakeOpenAI) -> None:
    fake.add({"text": "partial", "finish_reason": "SAFETY"})
    assert isinstance(run(make_chat(fake), request("go")).error, Blocked)


def test_a_filtered_prompt_is_blocked(fake: FakeOpenAI) -> None:
    fake.add({"block_reason": "SAFETY"})
    result = run(make_chat(fake), request("go"))
    assert isinstance(result.error, Blocked) and "content filter" in str(result.error)


def test_an_exhausted_quota_falls_back_to_the_next_model(fake: FakeOpenAI) -> None:
    fake.add({"error": {"code": 429, "quota": "daily"}}, {"text": "from the small one"})
    chat = make_chat(fake, fallback=["openai:gpt-small"])
    result = run(chat, request("go"))
    assert result.error is None and result.final_parts() == [TextPart("from the small one")]
    assert [r.body["model"] for r in fake.generate_requests] == ["gpt-test", "gpt-small"]
    assert chat.model == "openai:gpt-small"


def test_the_output_limit_is_sent_only_when_the_recipe_sets_one(fake: FakeOpenAI) -> None:
    fake.add({"text": "a"})
    assert run(make_chat(fake, max_output_tokens=1000), request("go")).error is None
    assert fake.generate_requests[0].body["max_tokens"] == 1000
    provider = OpenAIProvider(api_key="k", max_output_tokens=1000)  # OpenAI's own endpoint
    kwargs = provider.build_kwargs(request("go"))
    assert "max_tokens" not in kwargs


def test_openai_itself_needs_a_key_a_server_of_ones_own_does_not() -> None:
    with pytest.raises(InvalidInput, match="set OPENAI_API_KEY"):
        OpenAIProvider.from_config(model_config(name="openai:gpt-4o"), {})
    local = model_config(name="openai:llama3", base_url="http://127.0.0.1:11434/v1")
    assert OpenAIProvider.from_config(local, {}).endpoint == "http://127.0.0.1:11434/v1"


def test_a_refused_connection_to_a_loopback_base_url_fails_at_once() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free, and nothing listens once closed
    cfg = model_config(name="openai:m", base_url=f"http://127.0.0.1:{port}/v1")
    chat = Chat(OpenAIProvider.from_config(cfg, {}), cfg, sleep=Sleeps())
    result = run(chat, request("go"))
    assert isinstance(result.error, ProviderFailed)
    assert "connection refused" in str(result.error) and not result.events("retry")


def test_history_messages_are_converted_once(fake: FakeOpenAI) -> None:
    fake.add({"function_calls": [READ]}, {"text": "done"})
    chat = make_chat(fake)
    req = request("go")
    first = run(chat, req)
    req.messages += [Message("model", first.final_parts()),
                     Message("user", [ToolResultPart("call-1", "read_file", "x")])]  # fmt: skip
    assert run(chat, req).error is None
    assert isinstance(chat.provider, OpenAIProvider)
    assert chat.provider._messages.conversions == 3  # each message once, over two calls
    assert [m["role"] for m in fake.generate_requests[1].body["messages"]] == [
        "system", "user", "assistant", "tool"]  # fmt: skip


def test_openais_models_have_prices_windows_and_output_limits() -> None:
    from agentci.providers.pricing import cost_for, has_price
    from agentci.providers.registry import defaults_for
    from agentci.usage import Usage

    million = Usage(prompt_tokens=1_000_000, output_tokens=1_000_000)
    assert cost_for("openai:gpt-4o-mini-2024-07-18", million) == 0.75
    assert has_price("openai:gpt-4.1") and not has_price("openai:qwen2.5-coder:7b")
    assert defaults_for("openai:gpt-4o").context_window == 128_000
    assert defaults_for("openai:gpt-4o").max_output_tokens == 16_384


def test_the_tables_output_limit_goes_to_openai_and_none_to_an_unknown_local_model() -> None:
    cloud = OpenAIProvider(api_key="k").build_kwargs(
        replace(request("go"), model="openai:gpt-4o", max_output_tokens=16_384)
    )
    assert cloud["max_completion_tokens"] == 16_384 and "max_tokens" not in cloud
    local = OpenAIProvider(api_key=None, base_url="http://127.0.0.1:11434/v1").build_kwargs(
        replace(request("go"), model="openai:qwen2.5-coder:7b", max_output_tokens=65_536)
    )
    assert "max_tokens" not in local and "max_completion_tokens" not in local


def test_temperature_is_not_sent_to_openais_reasoning_models() -> None:
    provider = OpenAIProvider(api_key="k")
    for model, sent in (("gpt-5-mini", False), ("o4-mini", False), ("gpt-4.1", True)):
        kwargs = provider.build_kwargs(
            replace(request("go"), model=f"openai:{model}", temperature=0.2)
        )
        assert ("temperature" in kwargs) is sent, model
