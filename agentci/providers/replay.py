"""Replay a recorded model session from a cassette (``model.name: replay:PATH``).

The cassette's format is :mod:`agentci.providers.cassette`: one line per model call, the
answer's chunks as agentci streamed them (format 2, read without any SDK), or as Gemini's REST
API sent them (format 1, the older one, still read). Each line's expectations are checked
against the live request. A resumed conversation (``agentci run --resume``) goes on with the
line after the answers its history already holds.

A replay never invents answers: running out of lines or a failed expectation raises
:class:`~agentci.errors.ProviderFailed`. A malformed cassette is
:class:`~agentci.errors.InvalidInput` when it is loaded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.errors import ProviderFailed
from agentci.providers.base import BuildContext, ModelChunk, ModelRequest, ProviderInfo
from agentci.providers.cassette import (
    Cassette,
    CassetteRequest,
    function_response_names,
    load_cassette,
)
from agentci.providers.defaults import ModelDefaults
from agentci.providers.history import earlier_answers
from agentci.providers.registry import model_file

if TYPE_CHECKING:
    from agentci.recipe.model_config import ModelConfig


class ReplayProvider:
    """Answers each model call with the next line of a cassette."""

    name = "replay"

    def __init__(self, cassette: Cassette, source: str = "<cassette>") -> None:
        self._cassette = cassette
        self._next = 0
        self.source = source

    @classmethod
    def from_file(cls, path: Path | str) -> ReplayProvider:
        path = Path(path)
        return cls(load_cassette(path), str(path))

    @property
    def remaining(self) -> int:
        """Calls not replayed yet."""
        return len(self._cassette) - self._next

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        """Yield the next recorded answer, after checking the request's expectations."""
        if self._next == 0:  # a resumed conversation goes on where its answers end
            self._next = earlier_answers(request.messages)
        index = self._next
        if index >= len(self._cassette):
            raise ProviderFailed(
                f"replay {self.source}: model call {index + 1} has no recorded answer "
                f"(the cassette holds {len(self._cassette)} calls)"
            )
        self._next += 1
        line, call = self._cassette.calls[index]
        self._check(call.request, request, f"replay {self.source}:{line} (call {index + 1})")
        for chunk in self._cassette.answer(index):
            yield chunk

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
