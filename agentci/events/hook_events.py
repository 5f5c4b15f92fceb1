"""Hook events: a recipe hook ran (docs/hooks.md), and a hook stopped the loop."""

from __future__ import annotations

from typing import Any, Literal

from agentci.events.envelope import EventBase

HookDecision = Literal["continue", "deny", "stop", "block", "rewrite"]


class HookResult(EventBase):
    """A recipe hook ran (docs/hooks.md): which one (``hook``: ``hooks.before_tool[0]``) at
    which ``stage``, its exit code (None: killed, timed out or not started), what it decided
    (``continue``; ``deny``/``rewrite`` for before_tool; ``block`` for after_agent; ``stop``),
    why (``reason``, what the model reads or why the hook failed), the arguments a
    ``rewrite`` put in place (``args``) and its output (capped)."""

    type: Literal["hook_result"] = "hook_result"
    hook: str
    command: str
    exit_code: int | None
    decision: HookDecision = "continue"
    output: str = ""
    stage: str = ""
    reason: str = ""
    args: dict[str, Any] | None = None


class AgentExecutionStopped(EventBase):
    """Something outside the model stopped the loop (a hook answered ``stop``)."""

    type: Literal["agent_execution_stopped"] = "agent_execution_stopped"
    reason: str
