"""A finished run's events as text again (``agentci replay --format console|jsonl``).

The console view is the one ``agentci run`` prints on a console that is not a terminal (CI, a
pipe, a file): the same :class:`~agentci.events.console.ConsoleSink`, fed the logged events in
order, so the replay of a run equals what its console showed, line for line. Events of a type
this version does not know are not shown there (a live console of this version would not have
shown them either); the JSONL view keeps them as they are.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from agentci.events.console import ConsoleSink
from agentci.events.read import EventLog, OtherEvent


def console_lines(log: EventLog, *, sanitize: Callable[[str], str], verbose: bool = False) -> str:
    """The console view of ``log``, one line per shown event."""
    buffer = io.StringIO()
    sink = ConsoleSink(buffer, sanitize=sanitize, verbose=verbose)
    for event in log.events:
        if not isinstance(event, OtherEvent):
            sink.write(event)
    return buffer.getvalue()


def jsonl_lines(log: EventLog, *, redact: Callable[[Any], Any]) -> str:
    """The events as JSONL, written the way ``events.jsonl`` writes them."""
    lines = []
    for event in log.events:
        data = event.data if isinstance(event, OtherEvent) else event.model_dump(mode="json")
        lines.append(json.dumps(redact(data), ensure_ascii=False, separators=(",", ":")) + "\n")
    return "".join(lines)
