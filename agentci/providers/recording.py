"""Record a live session as a cassette that ``model.name: replay:FILE`` plays back.

:class:`RecordingProvider` wraps any provider and writes one cassette line per *completed*
model call, in format 2 of :mod:`agentci.providers.cassette`: the request's expectations
(``model``, ``contents``, ``function_responses``) and the answer's chunks as the provider
streamed them (provider-neutral: a replay needs no SDK).
Calls that failed in transit (cut stream, 5xx, timeout) are not written — the chat layer
retried them, and a replay takes the successful path directly. Unusable answers that arrived
whole (empty reply, MALFORMED_FUNCTION_CALL...) are written, so a replay goes through the same
corrective retries.

Each line is flushed as soon as its call ends, so a run that is killed still leaves a usable
prefix of the session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentci.providers.base import ModelChunk, ModelRequest, Provider
from agentci.providers.cassette import call_line, function_response_names, header_lines


class RecordingProvider:
    """Passes ``inner``'s chunks through and appends each finished call to ``path``."""

    def __init__(self, inner: Provider, path: Path | str) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "recording")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.path.write_text(
            header_lines(f"agentci cassette recorded {stamp}; replay with model.name: replay:FILE"),
            encoding="utf-8",
        )
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        chunks: list[ModelChunk] = []
        failed = False
        try:
            async for chunk in self.inner.stream(request):
                chunks.append(chunk)
                yield chunk
        except BaseException as e:
            # a fault of the call itself is not part of the session; the consumer
            # stopping early (GeneratorExit) is: it acted on what it saw
            failed = not isinstance(e, GeneratorExit)
            raise
        finally:
            if not failed and chunks:
                self._write(request, chunks)

    def _write(self, request: ModelRequest, chunks: list[ModelChunk]) -> None:
        expect: dict[str, Any] = {"model": request.model, "contents": len(request.messages)}
        names = function_response_names(request.messages[-1] if request.messages else None)
        if names:
            expect["function_responses"] = names
        with self.path.open("a", encoding="utf-8") as f:
            f.write(call_line(expect, chunks))
        self.calls += 1
