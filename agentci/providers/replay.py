"""Replay a recorded model session from a cassette (``model.name: replay:PATH``).

A cassette is JSONL, one line per model call, in order::

    # comments and blank lines are skipped
    {"request": {"model": "gemini-2.5-flash", "contents": 3, "function_responses": ["read_file"]},
     "chunks": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]},
                                 "finishReason": "STOP"}]}]}

``chunks`` are raw Gemini ``GenerateContentResponse`` objects as the REST API streams them
(camelCase). ``request`` is optional and so is each expectation in it; present ones are
checked against the live request:

* ``model`` — the model name asked for (a recipe with ``model.name: replay:FILE`` asks for
  ``replay:FILE`` itself, which matches any recorded name; a fallback model must match);
* ``contents`` — the number of messages in the request;
* ``function_responses`` — names of the tool results in the request's last message, in order.

A replay never invents answers: running out of lines or a failed expectation raises
:class:`~agentci.errors.ProviderFailed`. A malformed cassette is
:class:`~agentci.errors.InvalidInput` when it is loaded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentci import jsontext
from agentci.errors import InvalidInput, ProviderFailed
from agentci.providers.base import BuildContext, ModelChunk, ModelRequest, ProviderInfo
from agentci.providers.defaults import ModelDefaults
from agentci.providers.gemini_wire import StreamDecoder, function_response_names, parse_response
from agentci.providers.registry import model_file

if TYPE_CHECKING:
    from agentci.recipe.schema import ModelConfig


class CassetteRequest(BaseModel):
    """Optional expectations on the request of one call."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    contents: int | None = Field(default=None, ge=0)
    function_responses: list[str] | None = None


class CassetteCall(BaseModel):
    """One model call: expectations and the streamed response chunks."""

    model_config = ConfigDict(extra="forbid")

    request: CassetteRequest = Field(default_factory=CassetteRequest)
    chunks: list[dict[str, Any]] = Field(min_length=1)


def load_cassette(path: Path, *, chunks: bool = True) -> list[tuple[int, CassetteCall]]:
    """Read a cassette; returns ``(line number, call)`` pairs. Raises InvalidInput.

    ``chunks=False`` checks the lines' shape without parsing the chunks as Gemini responses
    (which needs the SDK; ``agentci validate`` does not import it)."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InvalidInput(f"{path}: cannot read cassette: {e}") from e
    calls: list[tuple[int, CassetteCall]] = []
    for n, raw_line in enumerate(data.splitlines(), start=1):
        stripped = raw_line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            call = CassetteCall.model_validate(jsontext.loads(stripped))
            for raw in call.chunks if chunks else []:
                parse_response(raw)
        except (jsontext.NotJson, ValidationError) as e:
            raise InvalidInput(f"{path}:{n}: not a cassette line: {e}") from None
        calls.append((n, call))
    if not calls:
        raise InvalidInput(f"{path}: the cassette holds no model calls")
    return calls


class ReplayProvider:
    """Answers each model call with the next line of a cassette."""

    name = "replay"

    def __init__(self, calls: list[tuple[int, CassetteCall]], source: str = "<cassette>") -> None:
        self._calls = calls
        self._next = 0
        self.source = source

    @classmethod
    def from_file(cls, path: Path | str) -> ReplayProvider:
        path = Path(path)
        return cls(load_cassette(path), str(path))

    @property
    def remaining(self) -> int:
        """Calls not replayed yet."""
        return len(self._calls) - self._next

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        """Yield the next recorded answer, after checking the request's expectations."""
        index = self._next
        if index >= len(self._calls):
            raise ProviderFailed(
                f"replay {self.source}: model call {index + 1} has no recorded answer "
                f"(the cassette holds {len(self._calls)} calls)"
            )
        self._next += 1
        line, call = self._calls[index]
        self._check(call.request, request, f"replay {self.source}:{line} (call {index + 1})")
        decoder = StreamDecoder()
        for raw in call.chunks:
            yield decoder.decode(parse_response(raw))

    @staticmethod
    def _check(expect: CassetteRequest, request: ModelRequest, where: str) -> None:
        asked = request.model
        if expect.model is not None and expect.model != asked and not asked.startswith("replay:"):
            raise ProviderFailed(
                f"{where}: expected model {expect.model!r}, the request asks {request.model!r}"
            )
        if expect.contents is not None and expect.contents != len(request.messages):
            raise ProviderFailed(
                f"{where}: expected {expect.contents} messages in the request, "
                f"got {len(request.messages)}"
            )
        if expect.function_responses is not None:
            last = request.messages[-1] if request.messages else None
            got = function_response_names(last)
            if got != expect.function_responses:
                raise ProviderFailed(
                    f"{where}: expected tool results {expect.function_responses} in the last "
                    f"message, got {got}"
                )


def _build(model: ModelConfig, context: BuildContext) -> ReplayProvider:
    return ReplayProvider.from_file(model_file(model.name, context.base_dir))


def _check(model: ModelConfig, base_dir: Path) -> None:
    load_cassette(model_file(model.name, base_dir), chunks=False)


PROVIDER = ProviderInfo(
    name="replay",
    build=_build,
    check=_check,
    defaults=lambda name: ModelDefaults(free=True),
    offline=True,
)
