"""How many of one turn's calls run at once: at most :data:`MAX_CONCURRENT_CALLS` (and so at
most that many hook processes). :func:`bounded` gathers jobs under that bound;
:class:`Running` starts a group's calls together or keeps them to run one after the other
(:mod:`agentci.tools.scheduler` decides which).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: Read-only calls (with their hooks, one hook process per call at a time) run at once.
MAX_CONCURRENT_CALLS = 8


async def bounded(jobs: list[Coroutine[Any, Any, T]]) -> list[T]:
    """``asyncio.gather`` with at most :data:`MAX_CONCURRENT_CALLS` jobs running at once."""
    gate = asyncio.Semaphore(MAX_CONCURRENT_CALLS)

    async def one(job: Coroutine[Any, Any, T]) -> T:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(job) for job in jobs)))


class Running(Generic[T]):
    """The calls of one group as they start: at once (as tasks, at most
    :data:`MAX_CONCURRENT_CALLS` running) when ``together``, else one after the other, each
    run when its outcome is asked for (:meth:`results`), in the model's order."""

    def __init__(self, together: bool) -> None:
        self._together = together
        self._gate = asyncio.Semaphore(MAX_CONCURRENT_CALLS)
        self._jobs: list[Coroutine[Any, Any, T]] = []
        self._tasks: list[asyncio.Future[T]] = []

    async def start(self, job: Coroutine[Any, Any, T]) -> None:
        """Start ``job`` now (together: it runs up to its command's start before this returns,
        which happens in a thread, see :mod:`agentci.spawn`) or keep it for :meth:`results`
        (one by one)."""
        if not self._together:
            self._jobs.append(job)
            return

        async def gated() -> T:
            async with self._gate:
                return await job

        self._tasks.append(asyncio.ensure_future(gated()))
        await asyncio.sleep(0)  # let it begin while the next call is judged

    async def results(self) -> list[T]:
        """Every call's outcome, in the order they were started."""
        if not self._together:
            done = []
            while self._jobs:
                done.append(await self._jobs.pop(0))
            return done
        return list(await asyncio.gather(*self._tasks))

    async def cancel(self) -> None:
        """End what still runs (the batch left early: a hook's stop, a cancellation) and wait
        for it; close what never started."""
        for job in self._jobs:
            job.close()
        self._jobs.clear()
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
