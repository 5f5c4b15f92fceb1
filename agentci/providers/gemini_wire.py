"""Conversion between agentci's messages and Gemini's wire format (``google.genai.types``).

Two directions:

* requests: :func:`message_to_json` (REST JSON, camelCase; cached per message by
  :class:`ContentCache` so a long history is not rebuilt on every call), :func:`request_body`
  (the whole REST body), :func:`tools_to_sdk` (SDK objects, for the SDK's public path);
* responses: :class:`StreamDecoder` turns each streamed chunk — the REST JSON the private
  path reads (:meth:`StreamDecoder.decode_json`), or the SDK's ``GenerateContentResponse`` on
  the public path and in format-1 cassettes — into a :class:`~agentci.providers.base.ModelChunk`,
  keeping function call ids and ``thoughtSignature`` (as base64 text, sent back unchanged),
  usage, finish and block reasons.

Function calls that arrive without an ``id`` get a deterministic one, ``agentci-<name>-<n>``;
such ids are never sent back to the API (Gemini matches those calls by order).
"""

from __future__ import annotations

import base64
import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentci.providers.base import (
    Message,
    ModelChunk,
    ModelRequest,
    Part,
    TextPart,
    ToolCallPart,
    ToolSpec,
)
from agentci.providers.gemini_rest import (
    compact_json,
    int_field,
    list_field,
    obj_field,
    shaped,
    str_field,
)
from agentci.providers.gemini_tables import finish_of
from agentci.usage import Usage

if TYPE_CHECKING:
    from google.genai import types

SYNTHETIC_ID_PREFIX = "agentci-"


def _sig_from_sdk(raw: bytes | str | None) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, bytes):
        return base64.b64encode(raw).decode("ascii")
    return raw


def _wire_id(call_id: str) -> str | None:
    return None if call_id.startswith(SYNTHETIC_ID_PREFIX) else call_id


# ---------------------------------------------------------------- requests: JSON


def part_to_json(part: Part) -> dict[str, Any] | None:
    """One part as REST JSON (camelCase); ``None`` for parts never sent back (bare thoughts)."""
    out: dict[str, Any]
    if isinstance(part, TextPart):
        if part.thought and not part.signature:
            return None
        out = {"text": part.text}
        if part.thought:
            out["thought"] = True
    elif isinstance(part, ToolCallPart):
        call: dict[str, Any] = {"name": part.name, "args": part.args}
        if (wid := _wire_id(part.id)) is not None:
            call["id"] = wid
        out = {"functionCall": call}
    else:
        resp: dict[str, Any] = {"name": part.name, "response": part.as_response()}
        if (wid := _wire_id(part.id)) is not None:
            resp["id"] = wid
        return {"functionResponse": resp}
    if part.signature:
        out["thoughtSignature"] = part.signature
    return out


def message_to_json(message: Message) -> dict[str, Any]:
    """A message as a REST ``Content`` object."""
    parts = [j for p in message.parts if (j := part_to_json(p)) is not None]
    return {"role": message.role, "parts": parts}


def tool_to_json(spec: ToolSpec) -> dict[str, Any]:
    """A tool as a REST ``functionDeclaration``."""
    return {
        "name": spec.name,
        "description": spec.description,
        "parametersJsonSchema": spec.parameters,
    }


# ---------------------------------------------------------------- requests: SDK objects


def tools_to_sdk(tools: list[ToolSpec]) -> list[types.Tool]:
    """Tool specs as one SDK ``Tool`` holding every function declaration."""
    # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
    from google.genai import types

    if not tools:
        return []
    decls = [
        types.FunctionDeclaration(
            name=t.name, description=t.description, parameters_json_schema=t.parameters
        )
        for t in tools
    ]
    return [types.Tool(function_declarations=decls)]


class _Entry:
    __slots__ = ("ref", "parts", "content", "text")

    def __init__(self, ref: weakref.ref[Message], parts: int, content: Any) -> None:
        self.ref, self.parts, self.content = ref, parts, content
        self.text: str | None = None


class ContentCache:
    """Wire JSON per message, built once and reused while the message lives.

    A message is looked up by identity; a message whose part count changed since it was
    converted is converted again. Entries disappear with their messages. ``convert`` makes a
    message's wire form (Gemini's ``Content`` JSON by default; the OpenAI-compatible provider
    passes its own). :meth:`text` encodes a converted message once too, for a body sent as
    bytes (encoding a 200-turn history of 92 kB on every call took ten times joining its
    messages' cached texts).
    """

    def __init__(self, convert: Callable[[Message], Any] | None = None) -> None:
        self._convert: Callable[[Message], Any] = convert or message_to_json
        self._entries: dict[int, _Entry] = {}
        self._owner: dict[int, int] = {}  # id of a converted content -> its message's key
        self.conversions = 0
        self.encodings = 0

    def get(self, message: Message) -> Any:
        key = id(message)
        entry = self._entries.get(key)
        if entry is not None and entry.ref() is message and entry.parts == len(message.parts):
            return entry.content
        if entry is not None:
            self._owner.pop(id(entry.content), None)
        content = self._convert(message)
        self.conversions += 1
        ref = weakref.ref(message, self._drop(key))
        self._entries[key] = _Entry(ref, len(message.parts), content)
        self._owner[id(content)] = key
        return content

    def text(self, content: Any) -> str:
        """``content`` as compact JSON, its text as UTF-8 (:func:`compact_json`): encoded once
        when this cache converted it, on every call otherwise."""
        entry = self._entries.get(self._owner.get(id(content), -1))
        if entry is None or entry.content is not content:
            return compact_json(content)
        if entry.text is None:
            entry.text = compact_json(content)
            self.encodings += 1
        return entry.text

    def _drop(self, key: int) -> Any:
        entries, owner = self._entries, self._owner

        def drop(_ref: object) -> None:
            entry = entries.pop(key, None)
            if entry is not None:
                owner.pop(id(entry.content), None)

        return drop

    def contents(self, messages: list[Message]) -> list[Any]:
        return [self.get(m) for m in messages]


def request_body(request: ModelRequest, contents: list[dict[str, Any]]) -> dict[str, Any]:
    """The REST body of a ``generateContent`` call (camelCase), around ready ``contents``."""
    body: dict[str, Any] = {"contents": contents}
    if request.system:
        body["systemInstruction"] = {"role": "user", "parts": [{"text": request.system}]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": [tool_to_json(t) for t in request.tools]}]
    gen: dict[str, Any] = {}
    if request.temperature is not None:
        gen["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        gen["maxOutputTokens"] = request.max_output_tokens
    if request.thinking_budget is not None:
        gen["thinkingConfig"] = {
            "thinkingBudget": request.thinking_budget,
            "includeThoughts": request.thinking_budget != 0,
        }
    if gen:
        body["generationConfig"] = gen
    return body


# ---------------------------------------------------------------- responses


def _enum_str(value: Any) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


class StreamDecoder:
    """Decodes the chunks of one streamed call into :class:`ModelChunk` objects."""

    def __init__(self) -> None:
        self._calls = 0
        self._answered = False  # text or a function call arrived (not thoughts only)

    def decode(self, response: types.GenerateContentResponse) -> ModelChunk:
        chunk = ModelChunk(model_version=response.model_version)
        if response.prompt_feedback is not None:
            chunk.block_reason = _enum_str(response.prompt_feedback.block_reason)
        if response.usage_metadata is not None:
            u = response.usage_metadata
            chunk.usage = Usage(
                prompt_tokens=u.prompt_token_count or 0,
                output_tokens=u.candidates_token_count or 0,
                thoughts_tokens=u.thoughts_token_count or 0,
                cached_tokens=u.cached_content_token_count or 0,
            )
        if not response.candidates:
            return chunk
        cand = response.candidates[0]
        chunk.finish_reason = _enum_str(cand.finish_reason)
        for p in cand.content.parts if cand.content is not None and cand.content.parts else []:
            sig = _sig_from_sdk(p.thought_signature)
            if p.function_call is not None:
                fc = p.function_call
                self._calls += 1
                name = fc.name or ""
                call_id = fc.id or f"{SYNTHETIC_ID_PREFIX}{name}-{self._calls}"
                chunk.parts.append(ToolCallPart(call_id, name, dict(fc.args or {}), sig))
                self._answered = True
            elif p.text is not None or sig:
                chunk.parts.append(TextPart(p.text or "", bool(p.thought), sig))
                self._answered = self._answered or bool(not p.thought and (p.text or "").strip())
        chunk.finish = finish_of(chunk.finish_reason, answered=self._answered)
        return chunk

    def decode_json(self, raw: Mapping[str, Any]) -> ModelChunk:
        """One streamed chunk as the REST API sends it (camelCase JSON), read without the SDK
        (:mod:`.gemini_rest`). Fields it does not know are left alone; a known field of another
        type than the API's raises :class:`~.gemini_rest.WireShapeError`."""
        chunk = ModelChunk(model_version=str_field(raw, "modelVersion"))
        feedback = obj_field(raw, "promptFeedback")
        if feedback is not None:
            chunk.block_reason = str_field(feedback, "blockReason")
        u = obj_field(raw, "usageMetadata")
        if u is not None:
            chunk.usage = Usage(
                prompt_tokens=int_field(u, "promptTokenCount"),
                output_tokens=int_field(u, "candidatesTokenCount"),
                thoughts_tokens=int_field(u, "thoughtsTokenCount"),
                cached_tokens=int_field(u, "cachedContentTokenCount"),
            )
        candidates = list_field(raw, "candidates")
        if not candidates:
            return chunk
        cand = shaped(candidates[0], dict, "candidates[0]")
        chunk.finish_reason = str_field(cand, "finishReason")
        content = obj_field(cand, "content")
        for p in (list_field(content, "parts") if content is not None else None) or []:
            p = shaped(p, dict, "part")
            sig = str_field(p, "thoughtSignature")
            fc = obj_field(p, "functionCall")
            text = str_field(p, "text")
            if fc is not None:
                self._calls += 1
                name = str_field(fc, "name") or ""
                call_id = str_field(fc, "id") or f"{SYNTHETIC_ID_PREFIX}{name}-{self._calls}"
                args = obj_field(fc, "args") or {}
                chunk.parts.append(ToolCallPart(call_id, name, dict(args), sig))
                self._answered = True
            elif text is not None or sig:
                thought = shaped(p.get("thought"), (bool, type(None)), "thought")
                chunk.parts.append(TextPart(text or "", bool(thought), sig))
                self._answered = self._answered or bool(not thought and (text or "").strip())
        chunk.finish = finish_of(chunk.finish_reason, answered=self._answered)
        return chunk


def parse_response(raw: dict[str, Any]) -> types.GenerateContentResponse:
    """Validate one REST response chunk (camelCase or snake_case JSON) with the SDK's type,
    strictly: a format-1 cassette's field the SDK does not know is rejected (live answers are
    read by :meth:`StreamDecoder.decode_json`, which leaves such fields alone)."""
    # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
    from google.genai import types

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown enum values are kept, as strings
        return types.GenerateContentResponse.model_validate(raw)


def decode_rest(raw_chunks: list[dict[str, Any]]) -> list[ModelChunk]:
    """One call's REST response chunks (a format-1 cassette's) as agentci chunks."""
    decoder = StreamDecoder()
    return [decoder.decode(parse_response(raw)) for raw in raw_chunks]
