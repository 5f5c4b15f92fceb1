"""What every provider speaks: messages in, a stream of chunks out.

Messages are plain dataclasses with one discriminated union of parts (``kind``), like
pydantic-ai's. A provider converts them to its own wire format once per request and turns
what it receives into :class:`ModelChunk` objects; the loop never sees SDK types.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from agentci.events.warning_events import WarningKind
from agentci.finish import Finish
from agentci.providers.defaults import ModelDefaults
from agentci.usage import Usage

if TYPE_CHECKING:
    from agentci.recipe.model_config import ModelConfig


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
    the file holding the whole output when it was saved (:mod:`agentci.tools.truncation`);
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
    """One streamed piece of a model answer.

    ``finish`` is how the answer ended, in agentci's words (:mod:`agentci.finish`: the only
    thing the loop reads); ``finish_reason`` is the API's own string for it, shown in the log.
    ``warning`` (kind, message): something the provider changed on its own that the run should
    say (a ``warning`` event), in a chunk of its own before the answer."""

    parts: list[Part] = field(default_factory=list)
    usage: Usage | None = None  # usageMetadata as reported; the last report of a call counts
    finish: Finish | None = None
    finish_reason: str | None = None
    block_reason: str | None = None
    model_version: str | None = None
    warning: tuple[WarningKind, str] | None = None


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
    (``kind`` names it, for a ``warning`` event); the call is retried at once."""

    def __init__(self, kind: WarningKind, message: str) -> None:
        self.kind = kind
        super().__init__(message)


@dataclass
class BuildContext:
    """What building a provider may use besides the recipe's model section: the folder its
    files are relative to, the environment (keys), and ``shared``: state the providers of one
    run share (a dict per provider name, e.g. Gemini's SDK clients)."""

    base_dir: Path
    environ: Mapping[str, str]
    shared: dict[str, Any] = field(default_factory=dict)


def _no_defaults(model: str) -> ModelDefaults:
    return ModelDefaults()


@dataclass(frozen=True)
class ProviderInfo:
    """What a provider module tells the registry (its module-level ``PROVIDER``).

    * ``name`` — the recipe's ``model.provider`` value and the name prefix (``name:MODEL``);
    * ``build(model, context)`` — the provider for a task; ``model.name`` is the name without
      the prefix; raises :class:`~agentci.errors.InvalidInput` (a missing key, a missing file);
    * ``check(model, base_dir)`` — what ``agentci validate`` checks without a key, the network
      or an SDK (a file exists and parses); None: nothing to check;
    * ``defaults(name)`` — the provider's table: price, window, output limit, thinking;
    * ``claims(name)`` — whether a name with no prefix and no ``model.provider`` is this
      provider's (only Gemini claims names: ``gemini-…``, ``gemma-…``);
    * ``known_models()`` — names for "did you mean";
    * ``offline`` — needs no key and no network (replay, scripted);
    * ``has_credentials(environ, model)`` — whether a key is there (None: always);
    * ``key_note(environ)`` — a line about which key is sent, shown once per run (or None);
    * ``key_vars(model)`` — the variables holding its key, masked in every output even when
      their names do not look secret;
    * ``warm_up()`` — an import worth starting early in a batch (the SDK), or None;
    * ``explicit_cache`` — serves ``model.cache: explicit`` (a context cache it makes and
      deletes); a recipe asking it of another provider is refused before the run.
    """

    name: str
    build: Callable[[ModelConfig, BuildContext], Provider]
    check: Callable[[ModelConfig, Path], None] | None = None
    defaults: Callable[[str], ModelDefaults] = _no_defaults
    claims: Callable[[str], bool] | None = None
    known_models: Callable[[], list[str]] = list
    offline: bool = False
    has_credentials: Callable[[Mapping[str, str], ModelConfig], bool] | None = None
    key_note: Callable[[Mapping[str, str]], str | None] | None = None
    key_vars: Callable[[ModelConfig], list[str]] | None = None
    warm_up: Callable[[], None] | None = None
    explicit_cache: bool = False
