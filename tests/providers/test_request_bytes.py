"""The bytes of a request body as the fake Gemini server received them (the private path: a
body agentci encodes itself)."""

from __future__ import annotations

import json

from gemini_helpers import make_chat, request, run

from agentci.providers.base import Message, TextPart
from agentci.testing.fake_gemini import FakeGemini


def test_the_body_is_sent_without_spaces_after_commas_and_colons(fake: FakeGemini) -> None:
    fake.add({"text": "ok"})
    assert run(make_chat(fake), request("fix the bug")).error is None
    sent = fake.generate_requests[-1]
    compact = json.dumps(sent.body, separators=(",", ":")).encode("ascii")
    assert sent.size == len(compact)
    assert sent.size < len(json.dumps(sent.body))


def test_text_that_is_not_ascii_is_sent_as_utf8(fake: FakeGemini) -> None:
    fake.add({"text": "ok"})
    assert run(make_chat(fake), request("café — naïve")).error is None
    sent = fake.generate_requests[-1]
    assert sent.contents[-1]["parts"][0]["text"] == "café — naïve"
    escaped = json.dumps(sent.body, separators=(",", ":")).encode("ascii")
    # é, ï (2 bytes in UTF-8) and — (3 bytes) instead of three 6-byte \\uXXXX escapes
    assert len(escaped) - sent.size == (6 - 2) * 2 + (6 - 3)


def test_a_lone_surrogate_is_sent_escaped(fake: FakeGemini) -> None:
    fake.add({"text": "ok"})
    chat = make_chat(fake)
    assert run(chat, request("a \ud800 b")).error is None
    assert chat.provider.uses_raw_path()  # no fallback to the SDK's path
    sent = fake.generate_requests[-1]
    assert sent.contents[-1]["parts"][0]["text"] == "a \ud800 b"
    assert sent.size == len(json.dumps(sent.body, separators=(",", ":")).encode("ascii"))


def test_each_message_is_encoded_once_over_the_calls_of_a_history(fake: FakeGemini) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    chat = make_chat(fake)
    req = request("a", "b", "c")
    run(chat, req)
    req.messages += [Message("model", [TextPart("one")]), Message("user", [TextPart("d")])]
    assert run(chat, req).error is None
    assert chat.provider._contents.encodings == 5


def test_a_body_of_cached_message_texts_is_the_body_encoded_whole(fake: FakeGemini) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    chat = make_chat(fake)
    req = request("a — b")
    run(chat, req)
    req.messages += [Message("model", [TextPart("one")]), Message("user", [TextPart("é")])]
    assert run(chat, req).error is None
    sent = fake.generate_requests[-1]
    whole = json.dumps(sent.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert sent.size == len(whole)
    assert list(sent.body)[0] == "contents" and len(sent.contents) == 3
