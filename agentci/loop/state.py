"""The one State object of a task's conversation (Claude Code's QueryEngine state).

Everything the loop knows lives here — never in globals — so a task can be inspected,
reported and resumed with a follow-up prompt (e.g. verify feedback).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentci.providers.base import Message
from agentci.usage import Usage


@dataclass
class Denial:
    """A tool call the policy refused."""

    tool: str
    rule: str
    reason: str


@dataclass
class State:
    """A task's conversation and counters."""

    messages: list[Message] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    calls_started: int = 0  # tool calls handed to the scheduler (counted before they run)
    usage: Usage = field(default_factory=Usage)  # every model call (attempt) of the task
    denials: list[Denial] = field(default_factory=list)
    final_text: str = ""
    output: dict[str, Any] | None = None  # the structured answer (submit_result), once valid
    last_prompt_tokens: int = 0

    def add_call(self, call: Usage) -> None:
        """Count one model call (one request, see :mod:`agentci.usage`)."""
        self.usage += call
        if call.prompt_tokens:
            self.last_prompt_tokens = call.prompt_tokens
