"""Opt-in: the OpenAI-compatible provider against a real server (skipped unless asked).

    AGENTCI_TEST_OPENAI_BASE_URL=http://127.0.0.1:11434/v1 \\
    AGENTCI_TEST_OPENAI_MODEL=qwen2.5-coder:7b \\
    pytest tests/providers/test_openai_live.py

``AGENTCI_TEST_OPENAI_MODEL`` names the model (default ``default``); the key comes from
``AGENTCI_TEST_OPENAI_API_KEY`` when the server needs one. What a model says varies: the tests
check what agentci makes of it (a usable answer, usage reported or estimated, well-formed
calls), not the words.
"""

from __future__ import annotations

import os

import pytest
from gemini_helpers import Sleeps, model_config, request, run

from agentci.loop.chat import Chat
from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.openai_compat import OpenAIProvider
from agentci.recipe.model_config import RetryConfig

BASE_URL = os.environ.get("AGENTCI_TEST_OPENAI_BASE_URL")
pytestmark = pytest.mark.skipif(
    not BASE_URL, reason="set AGENTCI_TEST_OPENAI_BASE_URL to run against a real server"
)
PATIENT = RetryConfig(attempts=3, request_timeout_seconds=120, stream_idle_timeout_seconds=60)


def live_chat() -> Chat:
    name = os.environ.get("AGENTCI_TEST_OPENAI_MODEL", "default")
    cfg = model_config(name=f"openai:{name}", base_url=BASE_URL, retry=PATIENT,
                       max_output_tokens=512, temperature=0)  # fmt: skip
    env = {}
    if os.environ.get("AGENTCI_TEST_OPENAI_API_KEY"):
        env["OPENAI_API_KEY"] = os.environ["AGENTCI_TEST_OPENAI_API_KEY"]
    return Chat(OpenAIProvider.from_config(cfg, env), cfg, sleep=Sleeps())


def test_a_plain_question_gets_a_usable_answer_and_counted_tokens() -> None:
    result = run(
        live_chat(), request("Answer with one word: what colour is the sky on a clear day?")
    )
    assert result.error is None, result.error
    answer = Message("model", result.final_parts())
    assert answer.text.strip() or answer.tool_calls
    usage = [c.usage for c in result.chunks if c.usage][-1]
    assert usage.prompt_tokens > 0 and usage.output_tokens + usage.thoughts_tokens > 0


def test_a_tool_offer_gives_a_well_formed_call_or_text_and_the_result_goes_back() -> None:
    chat = live_chat()
    req = request("Read the file a.py with the read_file tool, then tell me what it contains.")
    first = run(chat, req)
    assert first.error is None, first.error
    parts = first.final_parts()
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    if not calls:  # a model that would not call tools still answered
        assert Message("model", parts).text.strip()
        return
    assert all(c.name == "read_file" and isinstance(c.args, dict) and c.id for c in calls)
    req.messages += [
        Message("model", parts),
        Message("user", [ToolResultPart(c.id, c.name, "x = 41 + 1\n") for c in calls]),
    ]
    second = run(chat, req)
    assert second.error is None, second.error
    assert any(isinstance(p, (TextPart, ToolCallPart)) for p in second.final_parts())
