"""What every provider speaks: messages in, a stream of chunks out.

Messages are plain dataclasses with one discriminated union of parts (``kind``), like
pydantic-ai's. A provider converts them to its own wire format once per request and turns
what it receives into :class:`ModelChunk` objects; the loop never sees SDK types.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from agentci.usage import Usage


@dataclass
class TextPart:
    """Text from the model (``thought=True`` for a thought summary) or from the user."""

    text: str
    thought: bool = False
    signature: str | None = None
    kind: Literal["text"] = "text"


@dataclass
class ToolCallPart:
    """A function call the model asked for. ``signature`` is Gemini's thoughtSignature,
    sent back unchanged."""

    id: str
    name: str
    args: dict[str, Any]
    signature: str | None = None
    kind: Literal["tool_call"] = "tool_call"


@dataclass
class ToolResultPart:
    """The answer to a :class:`ToolCallPart`, matched by ``id`` and ``name``. ``saved`` names
    the file holding the whole output when it was saved (:mod:`agentci.context.truncation`);
    ``masked`` is true once ``output`` was replaced by a preview (:mod:`agentci.context.masking`).
    """

    id: str
    name: str
    output: str
    error: str | None = None
    saved: str | None = None
    masked: bool = False
    kind: Literal["tool_result"] = "tool_result"

    def as_response(self) -> dict[str, Any]:
        """The ``functionResponse.response`` object the model reads."""
        if self.error is not None:
            return (
                {"error": self.error, "output": self.output}
                if self.output
                else {"error": self.error}
            )
        return {"output": self.output}


Part = TextPart | ToolCallPart | ToolResultPart


@dataclass
class Message:
    """One entry of the conversation: ``user`` (prompts and tool results) or ``model``."""

    role: Literal["user", "model"]
    parts: list[Part]

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart) and not p.thought)


@dataclass(frozen=True)
class ToolSpec:
    """A function declaration: name, description and JSON Schema of the parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class ModelRequest:
    """Everything one model call needs."""

    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    temperature: float | None = None
    max_output_tokens: int | None = None
    thinking_budget: int | None = None


@dataclass
class ModelChunk:
    """One streamed piece of a model answer."""

    parts: list[Part] = field(default_factory=list)
    usage: Usage | None = None  # usageMetadata as reported; the last report of a call counts
    finish_reason: str | None = None
    block_reason: str | None = None
    model_version: str | None = None


@runtime_checkable
class Provider(Protocol):
    """A model behind a uniform streaming interface.

    ``stream`` raises :class:`agentci.errors.ProviderFailed` when the API fails for good
    (after its own retries); transient faults it cannot hide are raised as
    :class:`TransientProviderError` so the chat layer can retry the whole turn.
    """

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]: ...


class TransientProviderError(Exception):
    """A fault worth retrying from the start of the turn (cut stream, 5xx, timeout)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ProviderDegraded(TransientProviderError):
    """The provider switched to another way of calling the API after an unexpected failure
    (``kind`` names it, for an ``error`` event); the call is retried at once."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)
