"""Chat + GeminiProvider through the real google-genai SDK against fake_gemini over HTTP."""

from __future__ import annotations

import pytest
from gemini_helpers import STALL_RETRY, Sleeps, make_chat, model_config, request, run
from google.genai import types

from agentci.errors import (
    Blocked,
    BudgetExhausted,
    InvalidInput,
    ProviderFailed,
    ProviderUnavailable,
)
from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.gemini import GeminiProvider
from agentci.providers.gemini_tables import FINISH_REASONS
from agentci.testing.fake_gemini import FakeGemini

CALL = {
    "name": "read_file",
    "args": {"file_path": "a.py"},
    "id": "call-1",
    "thought_signature": "c2lnLTE=",
}


@pytest.mark.parametrize("raw_path", [True, False], ids=["prebuilt-body", "sdk-public-path"])
def test_multi_turn_tool_session_round_trips_ids_and_signatures(
    fake: FakeGemini, raw_path: bool
) -> None:
    fake.add(
        {
            "thought": "I should read it",
            "text": "Reading.",
            "function_calls": [CALL],
            "usage": {"prompt": 100, "output": 20, "thoughts": 7, "cached": 50},
        },
        {"text": "The bug is fixed."},
    )
    chat = make_chat(fake, temperature=0.2, thinking_budget=512)
    chat.provider.raw_path = raw_path
    assert chat.provider.uses_raw_path() is raw_path
    req = request("fix the bug")
    first = run(chat, req)
    assert first.error is None
    parts = first.final_parts()
    assert parts[0] == TextPart("I should read it", thought=True)
    assert parts[1] == TextPart("Reading.")
    assert parts[2] == ToolCallPart("call-1", "read_file", {"file_path": "a.py"}, "c2lnLTE=")
    # the calls come last, with the finish reason; usage passes through
    assert first.chunks[-1].finish_reason == "STOP"
    usage = [c.usage for c in first.chunks if c.usage][-1]
    assert (usage.prompt_tokens, usage.output_tokens) == (100, 20)
    assert (usage.thoughts_tokens, usage.cached_tokens) == (7, 50)

    req.messages += [
        Message("model", parts),
        Message("user", [ToolResultPart("call-1", "read_file", "x = 1")]),
    ]
    second = run(chat, req)
    assert second.error is None and second.final_parts() == [TextPart("The bug is fixed.")]

    sent = fake.generate_requests[1]
    assert sent.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert sent.query == {"alt": ["sse"]}
    assert sent.headers["x-goog-api-key"] == "fake-key"
    (call,) = sent.parts("functionCall")
    assert call["functionCall"] == {
        "id": "call-1",
        "name": "read_file",
        "args": {"file_path": "a.py"},
    }
    assert call["thoughtSignature"] == "c2lnLTE="
    (resp,) = sent.parts("functionResponse")
    assert resp["functionResponse"]["id"] == "call-1"
    assert resp["functionResponse"]["response"] == {"output": "x = 1"}
    assert not [p for p in sent.parts("text") if p.get("thought")]  # bare thoughts stay home
    body = sent.body
    assert body["systemInstruction"]["parts"] == [{"text": "You are a test."}]
    assert body["generationConfig"]["temperature"] == 0.2
    thinking = body["generationConfig"]["thinkingConfig"]  # the SDK sends snake_case here
    assert thinking.get("thinkingBudget", thinking.get("thinking_budget")) == 512
    decl = body["tools"][0]["functionDeclarations"][0]
    assert decl["name"] == "read_file"
    schema = decl.get("parametersJsonSchema", decl.get("parameters_json_schema"))
    assert schema["required"] == ["file_path"]
    assert "toolConfig" not in body  # automatic function calling is client-side only


def test_429_then_success_honours_retry_info(fake: FakeGemini, raw_path: bool) -> None:
    fake.add({"error": {"code": 429, "retry_delay": 0.03}}, {"text": "ok"})
    chat = make_chat(fake, raw_path=raw_path)
    res = run(chat, request("hi"))
    assert res.error is None
    (retry,) = res.events("retry")
    assert retry.attempt == 2 and retry.delay_seconds == 0.03 and "429" in retry.reason
    assert chat._sleep.delays == [0.03]
    assert res.final_parts() == [TextPart("ok")]


def test_retry_after_header_is_capped(fake: FakeGemini, raw_path: bool) -> None:
    fake.add({"error": {"code": 503, "retry_after": 30}}, {"text": "ok"})
    chat = make_chat(fake, raw_path=raw_path)
    res = run(chat, request("hi"))
    assert res.error is None and chat._sleep.delays == [0.05]  # max_delay_seconds


def test_500_until_retries_are_spent(fake: FakeGemini, raw_path: bool) -> None:
    fake.add(*[{"error": {"code": 500}}] * 3)
    res = run(make_chat(fake, raw_path=raw_path), request("hi"))
    assert isinstance(res.error, ProviderUnavailable) and "after 3 attempts" in str(res.error)
    assert res.error.status == "provider_unavailable"  # exit 75: run it again later
    assert len(res.events("retry")) == 2 and len(fake.generate_requests) == 3


@pytest.mark.parametrize("code", [400, 401, 403, 404])
def test_client_errors_are_not_retried(fake: FakeGemini, code: int, raw_path: bool) -> None:
    fake.add({"error": {"code": code}}, {"text": "never"})
    res = run(make_chat(fake, raw_path=raw_path), request("hi"))
    assert isinstance(res.error, ProviderFailed) and f"HTTP {code}" in str(res.error)
    assert res.error.status == "provider_error"  # exit 6: running it again would not help
    assert len(fake.generate_requests) == 1 and not res.events("retry")


def test_cut_stream_mid_function_call_is_retried_without_the_partial_call(
    fake: FakeGemini,
    raw_path: bool,
) -> None:
    fake.add(
        {"text": "Reading.", "function_calls": [CALL, {**CALL, "id": "call-2"}], "cut_after": 2},
        {"text": "Reading again.", "function_calls": [CALL]},
    )
    res = run(make_chat(fake, raw_path=raw_path), request("hi"))
    assert res.error is None
    (retry,) = res.events("retry")
    assert "connection" in retry.reason
    calls = [p for c in res.chunks for p in c.parts if isinstance(p, ToolCallPart)]
    assert [c.id for c in calls] == ["call-1"]  # the cut attempt's calls never left the chat
    assert res.final_parts() == [TextPart("Reading again."), calls[0]]


def test_malformed_chunk_is_retried(fake: FakeGemini, raw_path: bool) -> None:
    fake.add({"text": "a", "malformed_after": 1}, {"text": "b"})
    res = run(make_chat(fake, raw_path=raw_path), request("hi"))
    assert res.error is None and "malformed" in res.events("retry")[0].reason
    assert res.final_parts() == [TextPart("b")]


def test_stalled_stream_times_out_and_is_retried(fake: FakeGemini, raw_path: bool) -> None:
    # the stall outlasts the 0.5 s timer by far (stopping the fake server ends it)
    fake.add({"text": "a", "stall_after": 1, "stall_seconds": 600}, {"text": "b"})
    res = run(make_chat(fake, raw_path=raw_path, retry=STALL_RETRY), request("hi"))
    assert res.error is None and "stalled" in res.events("retry")[0].reason
    assert res.final_parts() == [TextPart("b")]


def _all_reasons() -> list[str]:
    return [r.value for r in types.FinishReason] + ["SOMETHING_NEW"]


def test_table_covers_every_sdk_finish_reason() -> None:
    assert {r.value for r in types.FinishReason} <= set(FINISH_REASONS)


@pytest.mark.filterwarnings("ignore:SOMETHING_NEW is not a valid FinishReason")
@pytest.mark.parametrize("reason", _all_reasons())
def test_every_finish_reason_has_a_defined_outcome(fake: FakeGemini, reason: str) -> None:
    finish = FINISH_REASONS.get(reason, "other")
    fake.add(*[{"text": "answer", "finish_reason": reason}] * 3)
    res = run(make_chat(fake), request("hi"))
    if finish in ("stop", "max_tokens"):
        assert res.error is None and res.final_parts() == [TextPart("answer")]
        assert (res.chunks[-1].finish, res.chunks[-1].finish_reason) == (finish, reason)
    elif finish in ("safety", "recitation"):
        assert isinstance(res.error, Blocked) and reason in str(res.error)
    else:
        assert isinstance(res.error, ProviderFailed), res.error
        assert [e.attempt for e in res.events("invalid_stream")] == [1, 2, 3]
        assert len(fake.generate_requests) == 3


def test_block_reason_without_candidates(fake: FakeGemini) -> None:
    fake.add({"block_reason": "PROHIBITED_CONTENT"})
    res = run(make_chat(fake), request("hi"))
    assert isinstance(res.error, Blocked) and "PROHIBITED_CONTENT" in str(res.error)


@pytest.mark.parametrize(
    "turn",
    [
        {"text": ""},
        {"thought": "only thinking"},
        {"text": "x", "finish_reason": None},
        {"finish_reason": "MALFORMED_FUNCTION_CALL"},
    ],
)
def test_unusable_answer_is_nudged_then_recovers(fake: FakeGemini, turn: dict) -> None:
    fake.add(turn, {"text": "a real answer"})
    req = request("hi")
    res = run(make_chat(fake), req)
    assert res.error is None and res.final_parts() == [TextPart("a real answer")]
    (inv,) = res.events("invalid_stream")
    assert inv.attempt == 1
    nudged = fake.generate_requests[1].contents[-1]["parts"]
    assert nudged[0] == {"text": "hi"} and "could not be used" in nudged[-1]["text"]
    assert len(req.messages[-1].parts) == 1  # the caller's history is untouched


def test_max_tokens_mid_function_call_drops_the_call(fake: FakeGemini) -> None:
    fake.add(
        {"text": "Writing", "function_calls": [CALL], "finish_reason": "MAX_TOKENS"},
        {"text": "smaller step"},
    )
    res = run(make_chat(fake), request("hi"))
    assert res.error is None
    assert not [p for c in res.chunks for p in c.parts if isinstance(p, ToolCallPart)]
    assert "MAX_TOKENS" in res.events("invalid_stream")[0].reason
    assert "token limit" in fake.generate_requests[1].contents[-1]["parts"][-1]["text"]


def test_fallback_on_quota_is_sticky(fake: FakeGemini) -> None:
    fake.add({"error": {"code": 429, "quota": "daily"}}, {"text": "from lite"}, {"text": "again"})
    chat = make_chat(fake, fallback=["gemini-2.5-flash-lite"])
    res = run(chat, request("hi"))
    assert res.error is None and res.final_parts() == [TextPart("from lite")]
    (fb,) = res.events("model_fallback")
    assert (fb.from_model, fb.to_model) == ("gemini-2.5-flash", "gemini-2.5-flash-lite")
    assert chat.model == "gemini-2.5-flash-lite"
    run(chat, request("next turn"))
    assert [r.model for r in fake.generate_requests] == [
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
        "gemini-2.5-flash-lite",
    ]


def test_quota_without_fallback_fails(fake: FakeGemini) -> None:
    fake.add({"error": {"code": 429, "quota": "daily"}}, {"text": "never"})
    res = run(make_chat(fake), request("hi"))
    assert isinstance(res.error, ProviderUnavailable) and "quota" in str(res.error)
    assert len(fake.generate_requests) == 1


def test_fallback_after_repeated_failure(fake: FakeGemini) -> None:
    fake.add(*[{"error": {"code": 503}}] * 3, {"text": "lite answers"})
    chat = make_chat(fake, fallback=["gemini-2.5-flash-lite"])
    res = run(chat, request("hi"))
    assert res.error is None and res.final_parts() == [TextPart("lite answers")]
    assert res.events("model_fallback")[0].reason.startswith("3 failed attempts")


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(InvalidInput, match="GEMINI_API_KEY"):
        GeminiProvider.from_config(model_config(), {})


def test_key_and_base_url_sources(fake: FakeGemini) -> None:
    p = GeminiProvider.from_config(
        model_config(base_url="http://x"), {"GOOGLE_API_KEY": "secret-123"}
    )
    assert p.base_url == "http://x" and "secret-123" not in repr(p)
    p = GeminiProvider.from_config(model_config(), {"GOOGLE_GENAI_USE_VERTEXAI": "true"})
    assert p.vertexai


def test_history_objects_are_built_once_per_message(fake: FakeGemini) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    chat = make_chat(fake)
    req = request("a", "b", "c")
    run(chat, req)
    req.messages.append(Message("model", [TextPart("one")]))
    req.messages.append(Message("user", [TextPart("d")]))
    run(chat, req)
    assert chat.provider._contents.conversions == 5


def _closed_loopback_port() -> int:
    """A loopback port nothing listens on (bound, then closed: connecting is refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection_to_a_loopback_base_url_fails_at_once(raw_path: bool) -> None:
    from agentci.loop.chat import Chat
    from agentci.recipe.model_config import RetryConfig

    url = f"http://127.0.0.1:{_closed_loopback_port()}"
    cfg = model_config(base_url=url, retry=RetryConfig(attempts=5), fallback=["gemini-2.5-pro"])
    provider = GeminiProvider.from_config(cfg, {"GEMINI_API_KEY": "k"})
    provider.raw_path = raw_path
    chat = Chat(provider, cfg, sleep=Sleeps())
    res = run(chat, request("hi"))
    assert isinstance(res.error, ProviderFailed)
    assert f"connection refused by {url}" in str(res.error)
    assert res.events("retry") == [] and res.events("model_fallback") == []
    assert chat._sleep.delays == []


def test_thinking_cut_at_the_output_limit_is_budget_exhausted_at_once(fake: FakeGemini) -> None:
    """The model spent its whole output limit thinking (thoughts only, MAX_TOKENS): asking
    again would bill the same again; the task ends budget_exhausted, not provider_error."""
    fake.add(*[{"thought": "thinking at length", "finish_reason": "MAX_TOKENS"}] * 3)
    res = run(make_chat(fake), request("hi"))
    assert isinstance(res.error, BudgetExhausted), res.error
    assert res.error.limit == "max_output_tokens"
    assert "spent the whole output limit thinking" in str(res.error)
    assert len(fake.generate_requests) == 1  # billed once, not three times
