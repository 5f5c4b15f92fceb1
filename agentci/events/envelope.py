"""The fields every event line carries (``v``, ``seq``, ``ts``, ``run_id``, ``task``).

Producers build events with their own fields only; the :class:`~agentci.events.sinks.Emitter`
stamps these.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class EventBase(BaseModel):
    """The envelope of every event: format version, sequence number, time, run and task."""

    # defer_build: a class's validator is built when it is first used, not at import (an
    # event type a run never emits costs nothing; ``agentci pre-commit`` uses five of them)
    model_config = ConfigDict(extra="forbid", defer_build=True)

    v: int = 1
    seq: int = 0
    ts: str = ""
    run_id: str = ""
    task: str = ""
