"""A model you write yourself: a list of replies or a function (pydantic-ai's FunctionModel).

For tests and for users' recipe tests: no network, no key, exact control::

    ScriptedProvider([
        Reply(calls=[call("read_file", file_path="app.py")]),
        Reply(text="Fixed it."),
    ])

A function ``(request, index) -> Reply`` may stand for the whole script or for one entry.
Running out of replies is a :class:`~agentci.errors.ProviderFailed`, never an invented answer.
A resumed conversation (``agentci run --resume``) goes on with the reply after the answers its
history already holds.
``scripted:PATH`` in a recipe loads a YAML/JSON list of replies (see :meth:`from_file`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentci.errors import InvalidInput, ProviderFailed, RecipeError
from agentci.finish import FINISHES, Finish, as_finish
from agentci.providers.base import (
    BuildContext,
    ModelChunk,
    ModelRequest,
    ProviderInfo,
    TextPart,
    ToolCallPart,
)
from agentci.providers.defaults import ModelDefaults
from agentci.providers.gemini_tables import finish_of
from agentci.providers.history import earlier_answers
from agentci.providers.registry import model_file
from agentci.recipe.load import load_yaml, validation_errors
from agentci.usage import Usage

if TYPE_CHECKING:
    from agentci.recipe.model_config import ModelConfig

_ids = itertools.count(1)


def call(name: str, /, **args: Any) -> ToolCallPart:
    """A tool call for a scripted reply: ``call("read_file", file_path="a.py")``."""
    return ToolCallPart(id=f"call_{next(_ids)}", name=name, args=args)


@dataclass
class Reply:
    """One scripted model answer. ``usage`` defaults to an estimate (4 characters a token)."""

    text: str = ""
    calls: list[ToolCallPart] = field(default_factory=list)
    thought: str = ""
    usage: Usage | None = None
    finish_reason: str = "STOP"  # a Finish (``stop``, ``max_tokens``...) or Gemini's word for it
    delay_seconds: float = 0.0  # the answer comes after this long (a model's latency)

    @property
    def finish(self) -> Finish | None:
        """How the reply ends in agentci's words (:mod:`agentci.finish`)."""
        answered = bool(self.text.strip() or self.calls)
        if self.finish_reason in FINISHES:
            finish = as_finish(self.finish_reason)
            return "max_tokens_in_thinking" if finish == "max_tokens" and not answered else finish
        return finish_of(self.finish_reason, answered=answered)


ReplyFn = Callable[[ModelRequest, int], Reply]


def estimate_usage(request: ModelRequest, reply: Reply) -> Usage:
    """A rough token count: characters / 4 of everything sent and received."""
    sent = len(request.system) + sum(len(repr(m.parts)) for m in request.messages)
    got = len(reply.text) + sum(len(repr(c.args)) + len(c.name) for c in reply.calls)
    return Usage(
        prompt_tokens=max(1, sent // 4),
        output_tokens=max(1, got // 4),
        thoughts_tokens=len(reply.thought) // 4,
    )


class ScriptedProvider:
    """Answers each model call with the next scripted :class:`Reply`."""

    def __init__(self, script: Sequence[Reply | ReplyFn] | ReplyFn, *, name: str = "scripted"):
        self.name = name
        self.script = script
        self.requests: list[ModelRequest] = []
        self._offset = 0  # replies the resumed conversation already holds

    def _next(self, request: ModelRequest) -> Reply:
        if not self.requests:  # a resumed conversation goes on where its answers end
            self._offset = earlier_answers(request.messages)
        index = len(self.requests) + self._offset
        self.requests.append(request)
        if callable(self.script):
            return self.script(request, index)
        if index >= len(self.script):
            raise ProviderFailed(
                f"the scripted model has no reply for call {index + 1} "
                f"(the script has {len(self.script)})"
            )
        entry = self.script[index]
        return entry(request, index) if callable(entry) else entry

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        reply = self._next(request)
        if reply.delay_seconds:
            await asyncio.sleep(reply.delay_seconds)
        parts: list[Any] = []
        if reply.thought:
            parts.append(TextPart(reply.thought, thought=True))
        if reply.text:
            parts.append(TextPart(reply.text))
        parts.extend(ToolCallPart(c.id, c.name, dict(c.args), c.signature) for c in reply.calls)
        yield ModelChunk(
            parts=parts,
            usage=reply.usage or estimate_usage(request, reply),
            finish=reply.finish,
            finish_reason=reply.finish_reason,
            model_version=f"{self.name}-1",
        )

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        """Load a YAML or JSON list of replies::

        - calls: [{name: read_file, args: {file_path: app.py}}]
        - text: Done.
          usage: {prompt_tokens: 1200, output_tokens: 40}   # optional: else an estimate
          delay_seconds: 0.3                                  # optional: latency
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InvalidInput(f"{path}: cannot read the reply script: {err}") from None
        data = load_yaml(text, file=path)
        if not isinstance(data, list):
            raise RecipeError("a reply script is a YAML list of replies", file=path, line=1)
        try:
            replies = _ScriptFile.model_validate({"replies": data}).replies
        except ValidationError as err:
            raise validation_errors(err, data, path, _ScriptFile, skip=1) from None
        return cls([r.to_reply() for r in replies], name=f"scripted:{path.name}")


class _ScriptCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class _ScriptReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = ""
    thought: str = ""
    calls: list[_ScriptCall] = Field(default_factory=list)
    finish_reason: str = "STOP"
    usage: Usage | None = None  # what the "API" reports (default: the estimate)
    delay_seconds: float = Field(default=0.0, ge=0)  # latency, for tests and benchmarks

    def to_reply(self) -> Reply:
        return Reply(
            text=self.text,
            thought=self.thought,
            calls=[call(c.name, **c.args) for c in self.calls],
            usage=self.usage,
            finish_reason=self.finish_reason,
            delay_seconds=self.delay_seconds,
        )


class _ScriptFile(BaseModel):
    replies: list[_ScriptReply]


def _build(model: ModelConfig, context: BuildContext) -> ScriptedProvider:
    return ScriptedProvider.from_file(model_file(model.name, context.base_dir))


def _check(model: ModelConfig, base_dir: Path) -> None:
    _build(model, BuildContext(base_dir, {}))


PROVIDER = ProviderInfo(
    name="scripted",
    build=_build,
    check=_check,
    defaults=lambda name: ModelDefaults(free=True),
    offline=True,
)
