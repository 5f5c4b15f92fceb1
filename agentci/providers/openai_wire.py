"""Conversion between agentci's messages and OpenAI chat completions (``openai`` package types).

* requests: :func:`message_to_wire` turns one message into chat messages (a user message
  holding tool results becomes one ``tool`` message per result, then a ``user`` message with
  its text); :func:`tools_to_wire` turns tool specs into ``function`` tools;
* responses: :class:`StreamAssembler` turns the chunks of one streamed call into
  :class:`~agentci.providers.base.ModelChunk` objects: text streams through, reasoning
  (``reasoning_content`` or ``reasoning`` deltas) as thoughts, tool calls are assembled
  across deltas by ``index`` and handed over with the finish reason, usage from the last chunk.

Partial servers: a call without an id gets a stable one, ``call_agentci_<m>_<n>`` (``m``: the
number of messages of the request, ``n``: the call's place in the answer), so a retried or
replayed answer gets the same ids and the tool results name them. A server that reuses
``index`` 0 for every call but gives each its own id gets separate calls. Arguments that are
not a JSON object end the answer as ``malformed_call`` (the chat layer retries with a nudge).
A stream that ends without reporting usage gets an estimate (:meth:`StreamAssembler.estimate`,
``estimated_calls=1``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentci.finish import Finish
from agentci.providers.base import (
    Message,
    ModelChunk,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from agentci.usage import Usage

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionChunk
    from openai.types.completion_usage import CompletionUsage

SYNTHETIC_ID_PREFIX = "call_agentci_"
#: Characters per token of the estimate made when a server reports no usage.
CHARS_PER_TOKEN = 4

#: OpenAI ``finish_reason`` → agentci's :data:`~agentci.finish.Finish`.
FINISH: dict[str, Finish] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "safety",
}


# ---------------------------------------------------------------- requests


def tool_content(part: ToolResultPart) -> str:
    """What a ``tool`` message carries: the output, or the error and any output."""
    if part.error is None:
        return part.output
    return f"Error: {part.error}" + (f"\n\n{part.output}" if part.output else "")


def message_to_wire(message: Message) -> list[dict[str, Any]]:
    """One message as chat messages (thoughts are never sent back)."""
    texts = [p.text for p in message.parts if isinstance(p, TextPart) and not p.thought]
    if message.role == "model":
        calls = [
            {"id": p.id, "type": "function",
             "function": {"name": p.name, "arguments": json.dumps(p.args, ensure_ascii=False)}}
            for p in message.parts if isinstance(p, ToolCallPart)
        ]  # fmt: skip
        out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        if calls:
            out["tool_calls"] = calls
        elif out["content"] is None:
            out["content"] = ""
        return [out]
    wire: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": p.id, "content": tool_content(p)}
        for p in message.parts
        if isinstance(p, ToolResultPart)
    ]
    if texts:
        wire.append({"role": "user", "content": "\n\n".join(texts)})
    return wire


def wire_size(wire: list[dict[str, Any]]) -> int:
    """Characters of a message's wire form (for the usage estimate)."""
    return len(json.dumps(wire, ensure_ascii=False))


def tools_to_wire(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as chat completion ``function`` tools (an empty schema becomes an object
    without properties, which every server accepts)."""
    out = []
    for t in tools:
        params = t.parameters or {"type": "object", "properties": {}}
        if params.get("type") == "object" and "properties" not in params:
            params = {**params, "properties": {}}
        out.append(
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": params},
            }
        )
    return out


# ---------------------------------------------------------------- responses


def usage_from(u: CompletionUsage) -> Usage:
    """OpenAI's usage: completion tokens include reasoning tokens, agentci counts them apart."""
    details = getattr(u, "completion_tokens_details", None)
    thoughts = int(getattr(details, "reasoning_tokens", None) or 0)
    cached_details = getattr(u, "prompt_tokens_details", None)
    cached = int(getattr(cached_details, "cached_tokens", None) or 0)
    output = int(u.completion_tokens or 0)
    return Usage(
        prompt_tokens=int(u.prompt_tokens or 0),
        output_tokens=max(output - thoughts, 0),
        thoughts_tokens=min(thoughts, output) if output else thoughts,
        cached_tokens=cached,
    )


@dataclass
class _Call:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    parsed: dict[str, Any] | None = None


class StreamAssembler:
    """Assembles one streamed answer (see the module docstring). ``position``: the number of
    messages in the request (for synthesized call ids)."""

    def __init__(self, position: int) -> None:
        self.position = position
        self._calls: dict[int, _Call] = {}
        self._slot: dict[int, int] = {}  # the server's index → our call
        self.finish: str | None = None
        self.usage_seen = False
        self.chars = {"text": 0, "thought": 0}

    def feed(self, chunk: ChatCompletionChunk) -> ModelChunk:
        """Text and thoughts of ``chunk`` (calls are kept back for :meth:`calls`)."""
        out = ModelChunk(model_version=getattr(chunk, "model", None) or None)
        if getattr(chunk, "usage", None) is not None:
            out.usage = usage_from(chunk.usage)  # type: ignore[arg-type]
            self.usage_seen = True
        for choice in (chunk.choices or [])[:1]:
            delta = choice.delta
            extra = getattr(delta, "model_extra", None) or {}
            thought = extra.get("reasoning_content") or extra.get("reasoning")
            if isinstance(thought, str) and thought:
                out.parts.append(TextPart(thought, thought=True))
                self.chars["thought"] += len(thought)
            if delta.content:
                out.parts.append(TextPart(delta.content))
                self.chars["text"] += len(delta.content)
            for tc in delta.tool_calls or []:
                fn = tc.function
                self._add(getattr(tc, "index", None), tc.id, fn.name if fn else None,
                          fn.arguments if fn else None)  # fmt: skip
            legacy = getattr(delta, "function_call", None)
            if legacy is not None:
                self._add(0, None, legacy.name, legacy.arguments)
            if choice.finish_reason:
                self.finish = str(choice.finish_reason)
        return out

    def _add(self, index: int | None, call_id: str | None, name: str | None, args: Any) -> None:
        if index is None:  # no index: a new call when it names itself, else the last one
            index = max(self._slot, default=-1) + (1 if (call_id or name) else 0)
            index = max(index, 0)
        key = self._slot.get(index)
        current = self._calls.get(key) if key is not None else None
        if current is None or (call_id and current.id and call_id != current.id):
            key = len(self._calls)  # a new call (or index 0 reused for the next call)
            self._slot[index] = key
            current = self._calls[key] = _Call()
        if call_id:
            current.id = call_id
        if name:
            current.name += name
        if isinstance(args, dict):  # a server that sends the arguments as an object
            current.parsed = args
        elif args:
            current.arguments.append(str(args))

    def calls(self) -> tuple[list[ToolCallPart], bool]:
        """The assembled calls, and whether all of them are well formed."""
        parts: list[ToolCallPart] = []
        ok = True
        for n, key in enumerate(sorted(self._calls)):
            call = self._calls[key]
            args = call.parsed
            if args is None:
                text = "".join(call.arguments).strip() or "{}"
                try:
                    args = json.loads(text)
                except ValueError:
                    args = None
            if not isinstance(args, dict) or not call.name:
                ok = False
                args = {}
            self.chars["text"] += sum(len(a) for a in call.arguments) + len(call.name)
            call_id = call.id or f"{SYNTHETIC_ID_PREFIX}{self.position}_{n}"
            parts.append(ToolCallPart(call_id, call.name, args))
        return parts, ok

    def final(self) -> ModelChunk:
        """The last chunk: the calls and the neutral finish reason."""
        calls, ok = self.calls()
        finish: Finish | None = (
            FINISH.get(self.finish, "other") if self.finish is not None else None
        )
        if not ok and finish != "max_tokens":  # a call cut by the limit is the limit's doing
            finish = "malformed_call"
        elif finish == "stop" and calls:
            finish = "tool_calls"
        elif (
            finish == "max_tokens"
            and not calls
            and not self.chars["text"]
            and self.chars["thought"]
        ):
            finish = "max_tokens_in_thinking"
        return ModelChunk(parts=list(calls), finish=finish, finish_reason=self.finish)

    def estimate(self, prompt_chars: int) -> Usage:
        """Usage guessed from sizes, for a server that reported none (one token per
        :data:`CHARS_PER_TOKEN` characters)."""

        def tokens(chars: int) -> int:
            return -(-chars // CHARS_PER_TOKEN)

        return Usage(
            prompt_tokens=tokens(prompt_chars),
            output_tokens=tokens(self.chars["text"]),
            thoughts_tokens=tokens(self.chars["thought"]),
            estimated_calls=1,
        )
