"""The fields every event line carries (``v``, ``seq``, ``ts``, ``run_id``, ``task``).

Producers build events with their own fields only; the :class:`~agentci.events.sinks.Emitter`
stamps these.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class EventBase(BaseModel):
    """The envelope of every event: format version, sequence number, time, run and task."""

    model_config = ConfigDict(extra="forbid")

    v: int = 1
    seq: int = 0
    ts: str = ""
    run_id: str = ""
    task: str = ""
