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

The cassette is opened once, when the provider is built, and written through that descriptor
until :meth:`RecordingProvider.close`: ``FILE`` is often in the checkout, where the repository
or the model's commands could put a symbolic link. An existing link is refused
(``O_NOFOLLOW``), an existing file that is not a regular file too, and a link made at the path
mid-run changes nothing (the descriptor still names the file opened first).
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.providers.base import ModelChunk, ModelRequest, Provider
from agentci.providers.cassette import call_line, function_response_names, header_lines


class RecordingProvider:
    """Passes ``inner``'s chunks through and appends each finished call to ``path``."""

    def __init__(self, inner: Provider, path: Path | str) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "recording")
        self.path = Path(path)
        self._fd: int | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = _open_cassette(self.path)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self._append(
            header_lines(f"agentci cassette recorded {stamp}; replay with model.name: replay:FILE")
        )
        self.calls = 0

    def close(self) -> None:
        """Closes the cassette (idempotent); later calls are passed through unrecorded."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()

    def _append(self, text: str) -> None:
        if self._fd is None:
            return
        data = text.encode("utf-8")
        while data:
            data = data[os.write(self._fd, data) :]

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        chunks: list[ModelChunk] = []
        failed = False
        try:
            async for chunk in self.inner.stream(request):
                if chunk.warning is None:  # the provider's own news is not the model's answer
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
        if self._fd is None:
            return
        self._append(call_line(expect, chunks))
        self.calls += 1


def _open_cassette(path: Path) -> int:
    """``path`` opened for writing, emptied: a new file, or an existing regular file; never
    through a symbolic link (:class:`InvalidInput` for a link or a special file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as err:
        if path.is_symlink():
            raise InvalidInput(
                f"--record {path}: is a symbolic link; agentci writes a cassette only to a "
                "regular file (remove the link or record to another path)"
            ) from None
        raise InvalidInput(f"--record {path}: cannot write it ({err.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InvalidInput(f"--record {path}: is not a regular file")
    os.set_blocking(fd, True)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_END)
    return fd
