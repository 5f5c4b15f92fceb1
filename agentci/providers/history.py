"""The conversation as data: ``history.jsonl`` lines to and from :class:`Message` objects.

One message a line, ``{"role": "user" | "model", "parts": [...]}``, each part a JSON object
with its ``kind`` (``text``, ``tool_call``, ``tool_result``) and the fields of its dataclass
(:mod:`agentci.providers.base`). A Gemini ``signature`` (thoughtSignature) is kept as it came,
so a resumed conversation is sent back as the model wrote it. ``agentci run --resume`` reads
it back (:func:`message_from_dict`) and continues from the last complete turn
(:func:`complete_turns`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agentci.providers.base import Message, Part, TextPart, ToolCallPart, ToolResultPart

_KINDS: dict[str, type[TextPart] | type[ToolCallPart] | type[ToolResultPart]] = {
    "text": TextPart,
    "tool_call": ToolCallPart,
    "tool_result": ToolResultPart,
}


def message_dict(message: Message) -> dict[str, Any]:
    """One ``history.jsonl`` line's object (default values left out, ``kind`` always there)."""
    parts = []
    for part in message.parts:
        fields = {}
        for f in dataclasses.fields(part):
            value = getattr(part, f.name)
            if f.name == "kind" or value != f.default:
                fields[f.name] = value
        parts.append(fields)
    return {"role": message.role, "parts": parts}


def message_from_dict(data: Any) -> Message:
    """The :class:`Message` of one line; ``ValueError`` names what is wrong with it."""
    if not isinstance(data, dict) or data.get("role") not in ("user", "model"):
        raise ValueError("a message is an object with role 'user' or 'model'")
    raw_parts = data.get("parts")
    if not isinstance(raw_parts, list):
        raise ValueError("a message has a list of parts")
    parts: list[Part] = []
    for raw in raw_parts:
        kind = raw.get("kind") if isinstance(raw, dict) else None
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ValueError(f"unknown part kind {kind!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(raw) - names
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)} in a {kind} part")
        try:
            parts.append(cls(**raw))
        except TypeError as err:
            raise ValueError(f"a {kind} part: {err}") from None
    return Message(role=data["role"], parts=parts)


def complete_turns(messages: list[Message]) -> list[Message]:
    """``messages`` up to the last complete turn: a trailing model message whose tool calls
    have no results yet (the run stopped while they ran) is dropped: the model asks again."""
    out = list(messages)
    if out and out[-1].role == "model" and out[-1].tool_calls:
        out.pop()
    return out


def earlier_answers(messages: list[Message]) -> int:
    """How many model answers a conversation already holds: where a scripted or replayed
    model's script goes on when its first request is a resumed conversation (one answer a
    model call, as recorded; a history that was compressed holds fewer)."""
    return sum(1 for m in messages if m.role == "model")
