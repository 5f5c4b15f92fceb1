"""Every event agentci emits: one pydantic discriminated union (docs/outputs.md, events.jsonl).

Each JSONL line is ``{"v":1,"seq":N,"ts":"…Z","run_id":"…","task":"name","type":"…", …}``.
Producers build events with their own fields only; the :class:`~agentci.events.sinks.Emitter`
stamps ``seq``, ``ts``, ``run_id`` and ``task`` (:mod:`agentci.events.envelope`).

The events are declared by concept: run and task lifecycle (:mod:`~agentci.events.lifecycle_events`),
model calls (:mod:`~agentci.events.model_events`), context management
(:mod:`~agentci.events.context_events`), tool calls (:mod:`~agentci.events.tool_events`), hooks
(:mod:`~agentci.events.hook_events`), verify (:mod:`~agentci.events.verify_events`) and warnings
(:mod:`~agentci.events.warning_events`). This module assembles them into :data:`Event` and is
the catalogue callers use (``from agentci.events import types as ev``).

Some events are declared before the feature that emits them exists; their docstrings
say so. A consumer can rely on every ``type`` listed in :data:`EVENT_TYPES`.
"""

from __future__ import annotations

from typing import Annotated, get_args

from pydantic import Field, TypeAdapter

from agentci.events.context_events import (
    ChatCompressed,
    CompressionStatus,
    ContextWindowWillOverflow,
    LoopDetectedEvent,
)
from agentci.events.envelope import EventBase
from agentci.events.hook_events import AgentExecutionStopped, HookDecision, HookResult
from agentci.events.lifecycle_events import (
    BudgetExhaustedEvent,
    ContextFileInfo,
    Error,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    UserCancelled,
)
from agentci.events.model_events import (
    AgentExecutionBlocked,
    Content,
    InvalidStream,
    ModelFallback,
    ModelInfo,
    Retry,
    Thought,
    TurnFinished,
    TurnStarted,
    Usage,
)
from agentci.events.tool_events import ToolCallDecision, ToolCallRequest, ToolCallResponse
from agentci.events.verify_events import VerifyLocation, VerifyResult, VerifyTest
from agentci.events.warning_events import WARNING_KINDS, WarningEvent, WarningKind

# Token and cost totals: the one usage type (agentci/usage.py), named for the event schema.
from agentci.usage import Usage as UsageTotals

__all__ = [
    "EVENT_ADAPTER",
    "EVENT_TYPES",
    "WARNING_KINDS",
    "AgentExecutionBlocked",
    "AgentExecutionStopped",
    "BudgetExhaustedEvent",
    "ChatCompressed",
    "CompressionStatus",
    "Content",
    "ContextFileInfo",
    "ContextWindowWillOverflow",
    "Error",
    "Event",
    "EventBase",
    "HookDecision",
    "HookResult",
    "InvalidStream",
    "LoopDetectedEvent",
    "ModelFallback",
    "ModelInfo",
    "Retry",
    "RunFinished",
    "RunStarted",
    "TaskFinished",
    "TaskStarted",
    "Thought",
    "ToolCallDecision",
    "ToolCallRequest",
    "ToolCallResponse",
    "TurnFinished",
    "TurnStarted",
    "Usage",
    "UsageTotals",
    "UserCancelled",
    "VerifyLocation",
    "VerifyResult",
    "VerifyTest",
    "WarningEvent",
    "WarningKind",
    "parse_event",
]

Event = Annotated[
    RunStarted
    | TaskStarted
    | TurnStarted
    | ModelInfo
    | Content
    | Thought
    | ToolCallRequest
    | ToolCallDecision
    | ToolCallResponse
    | Retry
    | ModelFallback
    | ChatCompressed
    | ContextWindowWillOverflow
    | LoopDetectedEvent
    | HookResult
    | AgentExecutionStopped
    | AgentExecutionBlocked
    | InvalidStream
    | Usage
    | TurnFinished
    | VerifyResult
    | BudgetExhaustedEvent
    | Error
    | WarningEvent
    | UserCancelled
    | TaskFinished
    | RunFinished,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

EVENT_TYPES: tuple[str, ...] = tuple(
    m.model_fields["type"].default for m in get_args(get_args(Event)[0])
)
"""Every event ``type``, in the order of the union (and of docs/outputs.md)."""


def parse_event(line: str | bytes) -> Event:
    """Parse one JSONL line back into its event class."""
    return EVENT_ADAPTER.validate_json(line)
