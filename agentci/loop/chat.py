"""The provider call of one turn, with retry and fallback.

:meth:`Chat.stream` yields the provider's :class:`ModelChunk` objects, and events the turn
passes on. A :class:`~agentci.events.types.Retry` event means: everything streamed so far
in this turn is discarded, the call starts again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from agentci.events.types import Event
from agentci.providers.base import ModelChunk, ModelRequest, Provider
from agentci.recipe.schema import ModelConfig


class Chat:
    """Calls the provider for the current model (sticky after a fallback)."""

    def __init__(self, provider: Provider, model: ModelConfig) -> None:
        self.provider = provider
        self.config = model
        self.model = model.name

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk | Event]:
        """Stream one model call for ``request`` with the current model."""
        async for chunk in self.provider.stream(replace(request, model=self.model)):
            yield chunk
