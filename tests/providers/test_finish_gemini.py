"""Gemini's finish reasons reach the loop as agentci's ``Finish`` values (real SDK, fake
server): the provider classifies its own strings; the API's word is kept beside it."""

from __future__ import annotations

import asyncio

import pytest
from gemini_helpers import model_config, request

from agentci.providers.base import ModelChunk
from agentci.providers.gemini import GeminiProvider
from agentci.testing.fake_gemini import FakeGemini


def _stream(fake: FakeGemini, *, raw_path: bool) -> list[ModelChunk]:
    provider = GeminiProvider.from_config(model_config(), fake.env())
    provider.raw_path = raw_path

    async def go() -> list[ModelChunk]:
        return [c async for c in provider.stream(request("hi"))]

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("turn", "finish"),
    [
        ({"text": "done"}, "stop"),
        ({"text": "long answ", "finish_reason": "MAX_TOKENS"}, "max_tokens"),
        (
            {"thought": "thinking at length", "finish_reason": "MAX_TOKENS"},
            "max_tokens_in_thinking",
        ),
        ({"text": "no", "finish_reason": "SAFETY"}, "safety"),
        ({"text": "no", "finish_reason": "PROHIBITED_CONTENT"}, "safety"),
        ({"text": "quoted", "finish_reason": "RECITATION"}, "recitation"),
        ({"finish_reason": "MALFORMED_FUNCTION_CALL"}, "malformed_call"),
        ({"text": "x", "finish_reason": "OTHER"}, "other"),
    ],
)
def test_the_gemini_provider_says_how_an_answer_ended_as_a_finish(
    fake: FakeGemini, raw_path: bool, turn: dict, finish: str
) -> None:
    fake.add(turn)
    last = _stream(fake, raw_path=raw_path)[-1]
    assert (last.finish, last.finish_reason) == (finish, turn.get("finish_reason", "STOP"))
