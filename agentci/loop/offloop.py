"""Blocking work off the event loop, so SIGINT / SIGTERM are handled while it runs.

:func:`off_loop` runs a function in a daemon thread and awaits its result. Cancelling the await
abandons the thread: its result is dropped, and a daemon thread never holds up the exit. Work
that must stop at a clean point checks a flag of its own (see agentci.outputs.writer.Gate).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():  # cancelled meanwhile: nobody waits for it any more
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]


async def off_loop(fn: Callable[[], T], *, name: str = "agentci-work") -> T:
    """``fn()`` in a daemon thread; its result (or exception) here."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def work() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = fn()
        except BaseException as err:  # noqa: BLE001 - handed to the awaiting coroutine
            error = err
        with contextlib.suppress(RuntimeError):  # the loop is closed: the run has ended
            loop.call_soon_threadsafe(_settle, future, result, error)

    threading.Thread(target=work, name=name, daemon=True).start()
    return await future
