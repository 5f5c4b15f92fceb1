"""Record a live session against fake_gemini, replay it, get the same stream."""

from __future__ import annotations

import json
from pathlib import Path

from gemini_helpers import model_config, request, run

from agentci.loop.chat import Chat
from agentci.providers.base import Message, ToolResultPart
from agentci.providers.gemini import GeminiProvider
from agentci.providers.recording import RecordingProvider
from agentci.providers.replay import ReplayProvider
from agentci.testing.fake_gemini import FakeGemini


def session(chat: Chat) -> list:
    """Two model calls with a tool result in between; returns everything Chat yielded."""
    req = request("fix it")
    first = run(chat, req)
    assert first.error is None, first.error
    call = first.final_parts()[-1]
    req.messages += [
        Message("model", first.final_parts()),
        Message("user", [ToolResultPart(call.id, call.name, "contents")]),
    ]
    second = run(chat, req)
    assert second.error is None, second.error
    return first.items + second.items


def test_record_then_replay_gives_identical_chunks(fake: FakeGemini, tmp_path: Path) -> None:
    fake.add(
        {"error": {"code": 503}},  # a transient fault: retried, not recorded
        {
            "thought": "look first",
            "text": "Reading.",
            "usage": {"prompt": 9, "output": 4},
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "a"}, "thought_signature": "c2ln"}
            ],
        },
        {"text": ""},  # an unusable answer: recorded, so the replay nudges too
        {"text": "Done.", "model_version": "gemini-2.5-flash-002"},
    )
    cassette = tmp_path / "session.jsonl"
    cfg = model_config()
    live = Chat(RecordingProvider(GeminiProvider.from_config(cfg, fake.env()), cassette), cfg)
    recorded = session(live)
    header, *lines = [
        json.loads(x) for x in cassette.read_text().splitlines() if not x.startswith("#")
    ]
    assert header == {"agentci_cassette": 2}
    assert lines[0]["chunks"][-1]["finish"] == "stop"  # agentci's chunks, not Gemini's JSON
    assert [x["request"] for x in lines] == [
        {"model": "gemini-2.5-flash", "contents": 1},
        {"model": "gemini-2.5-flash", "contents": 3, "function_responses": ["read_file"]},
        {"model": "gemini-2.5-flash", "contents": 3, "function_responses": ["read_file"]},
    ]

    replay_cfg = model_config(name=f"replay:{cassette}")
    replayed = session(Chat(ReplayProvider.from_file(cassette), replay_cfg))
    without_fault = [i for i in recorded if getattr(i, "type", None) != "retry"]
    assert [i for i in replayed if getattr(i, "type", None) != "retry"] == without_fault
    assert [i for i in recorded if getattr(i, "type", None) == "retry"][0].reason.startswith(
        "HTTP 503"
    )
