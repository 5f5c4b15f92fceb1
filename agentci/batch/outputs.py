"""How a batch writes each task's outputs: small ones in a worker thread, large ones by a new
interpreter.

A one-task run writes its outputs in a forked child (:mod:`agentci.reports.child`). A batch
always has other threads alive, so it could not fork: it started a new interpreter for every
task, and that interpreter's start and imports (about 0.4 s of CPU) were most of a task's
CPU on a 2-core runner. A task's outputs are mostly small (a short patch, a few turns): writing
them takes milliseconds, so the batch writes them in a worker thread of its own process.

Large outputs (more than :data:`SMALL_OUTPUTS` characters of patch, conversation and events)
still go to a new interpreter: redacting them is one long regular-expression pass that would
hold the batch's interpreter lock, stalling the other tasks and a signal's handler.

A thread cannot be killed: when a signal cancels the task while its outputs are written in a
thread, the (short) write ends first, then the runner rewrites them as ``cancelled``.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from agentci.reports.child import write_outputs_in_child
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport
from agentci.reports.writer import write_outputs

#: Up to this many characters of patches, conversation and ``events.jsonl``, a task's outputs
#: are written in a worker thread (tens of milliseconds at most).
SMALL_OUTPUTS = 1_000_000


async def write_task_outputs(
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str],
    redactor: Redactor,
    optional: frozenset[str],
) -> list[str]:
    """Write a task's outputs (:func:`~agentci.reports.writer.write_outputs`); return the
    files that could not be written. Cancelling the await stops a new interpreter at once, or
    waits for the thread's short write."""
    if not is_small(out_dir, run, patches):
        return await write_outputs_in_child(out_dir, run, patches, redactor, optional)
    job = asyncio.ensure_future(
        asyncio.to_thread(write_outputs, out_dir, run, patches, redactor, optional=optional)
    )
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        # the caller rewrites the outputs next: not while this thread still writes them
        with contextlib.suppress(BaseException):
            await job
        raise


def is_small(out_dir: Path, run: RunReport, patches: dict[str, str]) -> bool:
    """Whether the task's patches, conversation and ``events.jsonl`` (report.html reads it)
    hold at most :data:`SMALL_OUTPUTS` characters together."""
    left = SMALL_OUTPUTS - sum(len(p) for p in patches.values())
    with contextlib.suppress(OSError):
        left -= (out_dir / "events.jsonl").stat().st_size
    for task in run.tasks:
        if left < 0:
            break
        left -= _chars(task.history or [], left)
    return left >= 0


def _chars(value: Any, limit: int) -> int:
    """The characters of the strings in ``value`` (JSON-like), counted up to past ``limit``."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, list | tuple):
        items = value
    else:
        return 8  # a number, a bool, None
    total = 0
    for item in items:
        total += _chars(item, limit - total) + 8
        if total > limit:
            break
    return total
