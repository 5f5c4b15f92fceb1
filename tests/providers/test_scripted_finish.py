"""A scripted reply says how it ends with a Finish value or with Gemini's word for it; the
provider hands the loop a Finish either way."""

from __future__ import annotations

import asyncio

import pytest

from agentci.providers.base import ModelChunk, ModelRequest
from agentci.providers.scripted import Reply, ScriptedProvider


def _last(reply: Reply) -> ModelChunk:
    provider = ScriptedProvider([reply])

    async def go() -> list[ModelChunk]:
        return [c async for c in provider.stream(ModelRequest("scripted:x", "", [], []))]

    return asyncio.run(go())[-1]


@pytest.mark.parametrize(
    ("reply", "finish"),
    [
        (Reply(text="done"), "stop"),
        (Reply(text="done", finish_reason="stop"), "stop"),
        (Reply(text="cut", finish_reason="MAX_TOKENS"), "max_tokens"),
        (Reply(text="cut", finish_reason="max_tokens"), "max_tokens"),
        (Reply(thought="long", finish_reason="MAX_TOKENS"), "max_tokens_in_thinking"),
        (Reply(thought="long", finish_reason="max_tokens"), "max_tokens_in_thinking"),
        (Reply(text="no", finish_reason="SAFETY"), "safety"),
        (Reply(finish_reason="MALFORMED_FUNCTION_CALL"), "malformed_call"),
        (Reply(text="?", finish_reason="SOMETHING_NEW"), "other"),
    ],
)
def test_a_scripted_reply_ends_with_a_finish(reply: Reply, finish: str) -> None:
    last = _last(reply)
    assert (last.finish, last.finish_reason) == (finish, reply.finish_reason)


def test_agentci_schema_lists_the_provider_keys_of_a_model() -> None:
    import json

    from agentci.testing.cli import agentci

    done = agentci("schema")
    model = json.loads(done.stdout)["$defs"]["ModelConfig"]["properties"]
    assert {"provider", "name", "base_url", "api_key_env"} <= set(model)
    assert "gemini | openai | replay | scripted" in model["provider"]["description"]
