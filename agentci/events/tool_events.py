"""Tool call events: the model's request, the policy's decision and the result the model sees."""

from __future__ import annotations

from typing import Any, Literal

from agentci.events.envelope import EventBase


class ToolCallRequest(EventBase):
    """The model asked for a tool call."""

    type: Literal["tool_call_request"] = "tool_call_request"
    call_id: str
    name: str
    args: dict[str, Any]


class ToolCallDecision(EventBase):
    """The policy's decision on a tool call, and the rule that decided."""

    type: Literal["tool_call_decision"] = "tool_call_decision"
    call_id: str
    name: str
    decision: Literal["allow", "deny"]
    rule: str
    reason: str = ""


class ToolCallResponse(EventBase):
    """A tool call's result as the model sees it (``output`` is capped)."""

    type: Literal["tool_call_response"] = "tool_call_response"
    call_id: str
    name: str
    ok: bool
    output: str
    error: str | None = None
    duration_ms: int = 0
    exit_code: int | None = None
