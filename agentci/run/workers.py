"""The event loop's worker threads, retired before a run's outputs are written.

The outputs are written by a forked child when agentci has one thread, and by a new interpreter
otherwise (about 0.6 s more; see :mod:`agentci.reports.child`). The loop's default thread pool
keeps its threads after a live provider resolved a host name (``getaddrinfo`` runs there), so a
plain ``agentci run`` used to pay for the new interpreter. :class:`LoopWorkers` owns that pool:
:meth:`LoopWorkers.retire` swaps in a fresh pool (no threads until it is used) and lets the old
one's idle threads end, waiting for them without blocking the loop, so a signal is still handled
at once. A job still running in the old pool finishes there; the writer then starts a new
interpreter as before.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor

#: How long :meth:`LoopWorkers.retire` waits for the old pool's threads to end.
RETIRE_GRACE_SECONDS = 0.5

_pools = itertools.count(1)


class LoopWorkers:
    """The default executor of one event loop, replaceable at the end of a run."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._prefix = ""
        self._pool = self._install()

    def _install(self) -> ThreadPoolExecutor:
        self._prefix = f"agentci-worker-{next(_pools)}"
        pool = ThreadPoolExecutor(thread_name_prefix=self._prefix)
        self._loop.set_default_executor(pool)
        return pool

    async def retire(self, grace: float = RETIRE_GRACE_SECONDS) -> bool:
        """End the current pool's idle threads; True when none of them is left."""
        old, prefix = self._pool, f"{self._prefix}_"
        self._pool = self._install()
        old.shutdown(wait=False)
        deadline = self._loop.time() + grace
        while True:
            alive = [t for t in threading.enumerate() if t.name.startswith(prefix)]
            if not alive:
                return True
            if self._loop.time() >= deadline:
                return False
            await asyncio.sleep(0.001)  # an idle thread ends within a millisecond or so
