"""Cassettes: a recorded model session, one JSON line per model call (``replay:FILE``).

Format 2, what ``agentci run --record`` writes — the :class:`ModelChunk` stream the provider
gave, whatever the provider was, so replaying needs no SDK::

    # comment lines and blank lines are skipped
    {"agentci_cassette": 2}
    {"request": {"model": "gemini-2.5-flash", "contents": 1},
     "chunks": [{"parts": [{"kind": "text", "text": "Reading."},
                           {"kind": "tool_call", "id": "c1", "name": "read_file",
                            "args": {"file_path": "a.py"}}],
                 "usage": {"prompt_tokens": 812, "output_tokens": 14},
                 "finish": "stop", "finish_reason": "STOP", "model_version": "gemini-2.5-flash"}]}

A chunk: ``parts`` (``text`` parts with ``thought`` and ``signature``; ``tool_call`` parts
with ``id``, ``name``, ``args``, ``signature``), ``usage`` (as reported), ``finish``
(:data:`~agentci.finish.Finish`), ``finish_reason`` (the API's word), ``block_reason``,
``model_version``; each optional.

Format 1, before: no header line, and each chunk a Gemini REST ``GenerateContentResponse``
(camelCase). It is still read (google-genai parses it, as the Gemini provider would have), and
``agentci cassette convert OLD NEW`` rewrites it as format 2.

``request`` (optional, each key optional) holds expectations checked against the live request:
``model`` (a recipe asking for ``replay:FILE`` itself matches any recorded name; a fallback
model must match), ``contents`` (the number of messages), ``function_responses`` (names of
the tool results in the last message, in order).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentci import jsontext
from agentci.errors import InvalidInput
from agentci.finish import Finish
from agentci.providers.base import Message, ModelChunk, Part, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.gemini_wire import decode_rest, parse_response
from agentci.usage import Usage

#: The format written; a cassette whose header names a newer one is refused.
VERSION = 2
HEADER_KEY = "agentci_cassette"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextJson(_Strict):
    kind: Literal["text"]
    text: str
    thought: bool = False
    signature: str | None = None


class CallJson(_Strict):
    kind: Literal["tool_call"]
    id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    signature: str | None = None


class ChunkJson(_Strict):
    """One :class:`ModelChunk` as a format-2 cassette stores it."""

    parts: list[Annotated[TextJson | CallJson, Field(discriminator="kind")]] = Field(
        default_factory=list
    )
    usage: Usage | None = None
    finish: Finish | None = None
    finish_reason: str | None = None
    block_reason: str | None = None
    model_version: str | None = None

    def to_chunk(self) -> ModelChunk:
        """A fresh chunk (the loop may change the arguments of a call it was given)."""
        parts: list[Part] = [
            TextPart(p.text, p.thought, p.signature)
            if isinstance(p, TextJson)
            else ToolCallPart(p.id, p.name, copy.deepcopy(p.args), p.signature)
            for p in self.parts
        ]
        usage = self.usage.model_copy() if self.usage is not None else None
        return ModelChunk(
            parts=parts,
            usage=usage,
            finish=self.finish,
            finish_reason=self.finish_reason,
            block_reason=self.block_reason,
            model_version=self.model_version,
        )


def chunk_to_json(chunk: ModelChunk) -> dict[str, Any]:
    """``chunk`` as a format-2 line's chunk (keys at their defaults left out)."""
    parts: list[dict[str, Any]] = []
    for p in chunk.parts:
        if isinstance(p, TextPart):
            j: dict[str, Any] = {"kind": "text", "text": p.text}
            if p.thought:
                j["thought"] = True
        elif isinstance(p, ToolCallPart):
            j = {"kind": "tool_call", "id": p.id, "name": p.name, "args": p.args}
        else:  # pragma: no cover - models never answer with tool results
            continue
        if p.signature:
            j["signature"] = p.signature
        parts.append(j)
    out: dict[str, Any] = {"parts": parts} if parts else {}
    if chunk.usage is not None:
        out["usage"] = chunk.usage.model_dump(exclude_defaults=True)
    for key in ("finish", "finish_reason", "block_reason", "model_version"):
        if getattr(chunk, key) is not None:
            out[key] = getattr(chunk, key)
    return out


class CassetteRequest(_Strict):
    """Optional expectations on the request of one call."""

    model: str | None = None
    contents: int | None = Field(default=None, ge=0)
    function_responses: list[str] | None = None


class CassetteCall(_Strict):
    """One model call: expectations and the streamed answer (raw: read per format)."""

    request: CassetteRequest = Field(default_factory=CassetteRequest)
    chunks: list[dict[str, Any]] = Field(min_length=1)


@dataclass
class Cassette:
    """A loaded cassette: its format and ``(line number, call)`` pairs."""

    version: int
    calls: list[tuple[int, CassetteCall]]

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[tuple[int, CassetteCall]]:
        return iter(self.calls)

    def answer(self, index: int) -> list[ModelChunk]:
        """The chunks of call ``index`` (0-based), fresh each time."""
        raw = self.calls[index][1].chunks
        if self.version >= 2:
            return [ChunkJson.model_validate(c).to_chunk() for c in raw]

        return decode_rest(raw)


def _header(value: Any) -> int | None:
    """The format a line's object announces (``{"agentci_cassette": N}``), or None."""
    if isinstance(value, dict) and set(value) == {HEADER_KEY}:
        version = value[HEADER_KEY]
        return version if isinstance(version, int) and not isinstance(version, bool) else -1
    return None


def load_cassette(path: Path, *, chunks: bool = True) -> Cassette:
    """Read a cassette of either format. Raises InvalidInput naming the line.

    ``chunks=False`` does not parse format-1 chunks as Gemini responses (that needs the SDK;
    ``agentci validate`` does not import it). Format-2 chunks are always checked."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InvalidInput(f"{path}: cannot read cassette: {e}") from e
    version = 1
    calls: list[tuple[int, CassetteCall]] = []
    for n, raw_line in enumerate(data.splitlines(), start=1):
        stripped = raw_line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            value = jsontext.loads(stripped)
            announced = _header(value)
            if announced is not None:
                if calls or version != 1 or announced not in range(1, VERSION + 1):
                    raise InvalidInput(
                        f"{path}:{n}: cassette format {value[HEADER_KEY]!r} is not one this "
                        f"agentci reads (1 to {VERSION}), or the header is not the first line"
                    )
                version = announced
                continue
            call = CassetteCall.model_validate(value)
            if version >= 2:
                for c in call.chunks:
                    ChunkJson.model_validate(c)
            elif chunks:
                for c in call.chunks:
                    parse_response(c)
        except (jsontext.NotJson, ValidationError) as e:
            raise InvalidInput(f"{path}:{n}: not a cassette line: {e}") from None
        calls.append((n, call))
    if not calls:
        raise InvalidInput(f"{path}: the cassette holds no model calls")
    return Cassette(version, calls)


def header_lines(comment: str) -> str:
    """The first lines of a format-2 cassette: ``# comment`` and the header."""
    return f"# {comment}\n{json.dumps({HEADER_KEY: VERSION})}\n"


def call_line(expect: dict[str, Any], chunks: list[ModelChunk]) -> str:
    """One format-2 line."""
    line = {"request": expect, "chunks": [chunk_to_json(c) for c in chunks]}
    return json.dumps(line, ensure_ascii=False) + "\n"


def function_response_names(message: Message | None) -> list[str]:
    """Names of the tool results in ``message``, in order (cassette expectations)."""
    if message is None:
        return []
    return [p.name for p in message.parts if isinstance(p, ToolResultPart)]


def convert(source: Path, target: Path) -> int:
    """Rewrite the cassette ``source`` (either format) as format 2 in ``target``, comments
    kept at the top; returns the number of calls. Raises InvalidInput."""
    cassette = load_cassette(source)
    comments = [
        line.decode("utf-8", "replace")
        for line in source.read_bytes().splitlines()
        if line.strip().startswith(b"#")
    ]
    out = "".join(f"{c}\n" for c in comments)
    out += json.dumps({HEADER_KEY: VERSION}) + "\n"
    for index, (_, call) in enumerate(cassette.calls):
        expect = call.request.model_dump(exclude_none=True)
        out += call_line(expect, cassette.answer(index))
    target.write_text(out, encoding="utf-8")
    return len(cassette)
