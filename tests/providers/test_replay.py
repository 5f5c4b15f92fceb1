"""ReplayProvider: cassette parsing, expectations, running out."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentci.errors import InvalidInput, ProviderFailed
from agentci.providers.base import Message, ModelRequest, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.replay import ReplayProvider

CALL_1 = {
    "request": {"model": "gemini-2.5-flash", "contents": 1},
    "chunks": [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "thinking", "thought": True},
                            {
                                "functionCall": {
                                    "id": "c1",
                                    "name": "read_file",
                                    "args": {"file_path": "a.py"},
                                },
                                "thoughtSignature": "c2lnMQ==",
                            },
                        ],
                    }
                }
            ]
        },
        {
            "candidates": [{"finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "thoughtsTokenCount": 3,
                "cachedContentTokenCount": 2,
            },
            "modelVersion": "gemini-2.5-flash-001",
        },
    ],
}
CALL_2 = {
    "request": {"function_responses": ["read_file"], "contents": 3},
    "chunks": [
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}
            ]
        }
    ],
}


def write(tmp_path: Path, *lines: object) -> Path:
    p = tmp_path / "c.jsonl"
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    p.write_text(text + "\n")
    return p


def req(messages: list[Message], model: str = "gemini-2.5-flash") -> ModelRequest:
    return ModelRequest(model=model, system="s", messages=messages, tools=[])


def collect(provider: ReplayProvider, request: ModelRequest) -> list:
    async def go():
        return [c async for c in provider.stream(request)]

    return asyncio.run(go())


def test_replays_in_order_with_comments(tmp_path: Path) -> None:
    p = write(tmp_path, "# a hand-written cassette", "", CALL_1, "  # second call", CALL_2)
    prov = ReplayProvider.from_file(p)
    first = [Message("user", [TextPart("fix it")])]
    chunks = collect(prov, req(first))
    assert chunks[0].parts[0] == TextPart("thinking", thought=True)
    call = chunks[0].parts[1]
    assert call == ToolCallPart("c1", "read_file", {"file_path": "a.py"}, "c2lnMQ==")
    assert chunks[1].finish_reason == "STOP"
    assert chunks[1].usage.prompt_tokens == 10
    assert chunks[1].usage.thoughts_tokens == 3
    assert chunks[1].usage.cached_tokens == 2
    assert chunks[1].model_version == "gemini-2.5-flash-001"
    history = first + [
        Message("model", [call]),
        Message("user", [ToolResultPart("c1", "read_file", "x = 1")]),
    ]
    chunks = collect(prov, req(history))
    assert chunks[0].parts == [TextPart("Done.")]
    assert prov.remaining == 0
    with pytest.raises(ProviderFailed, match="no recorded answer"):
        collect(prov, req(history))


def test_expectation_mismatch_fails(tmp_path: Path) -> None:
    prov = ReplayProvider.from_file(write(tmp_path, CALL_1))
    with pytest.raises(ProviderFailed, match="expected model"):
        collect(prov, req([Message("user", [TextPart("x")])], model="other"))
    prov = ReplayProvider.from_file(write(tmp_path, CALL_2))
    with pytest.raises(ProviderFailed, match="expected tool results"):
        collect(prov, req([Message("user", [TextPart("x")])] * 3))
    prov = ReplayProvider.from_file(write(tmp_path, CALL_2))
    with pytest.raises(ProviderFailed, match="expected 3 messages"):
        collect(prov, req([Message("user", [TextPart("x")])]))


def test_no_expectations_accepts_anything(tmp_path: Path) -> None:
    prov = ReplayProvider.from_file(write(tmp_path, {"chunks": CALL_2["chunks"]}))
    assert collect(prov, req([], model="whatever"))[0].parts == [TextPart("Done.")]


@pytest.mark.parametrize(
    "line", ["{not json", {"chunks": []}, {"chunks": [{}], "extra": 1}, {"chunks": [{"bogus": 1}]}]
)
def test_bad_cassette_is_invalid_input(tmp_path: Path, line: object) -> None:
    with pytest.raises(InvalidInput, match="c.jsonl:2"):
        ReplayProvider.from_file(write(tmp_path, "# header", line))


def test_empty_cassette_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no model calls"):
        ReplayProvider.from_file(write(tmp_path, "# nothing"))


def test_missing_ids_are_synthesized_deterministically(tmp_path: Path) -> None:
    line = {
        "chunks": [
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {"functionCall": {"name": "glob", "args": {"pattern": "*"}}},
                                {"functionCall": {"name": "glob", "args": {"pattern": "**"}}},
                            ]
                        },
                        "finishReason": "STOP",
                    }
                ]
            }
        ]
    }
    prov = ReplayProvider.from_file(write(tmp_path, line))
    parts = collect(prov, req([]))[0].parts
    assert [p.id for p in parts] == ["agentci-glob-1", "agentci-glob-2"]
