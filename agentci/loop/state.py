"""The one State object of a task's conversation (Claude Code's QueryEngine state).

Everything the loop knows lives here — never in globals — so a task can be inspected,
reported and resumed with a follow-up prompt (e.g. verify feedback).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentci.events.types import UsageTotals
from agentci.providers.base import ChunkUsage, Message


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
    usage: UsageTotals = field(default_factory=UsageTotals)
    denials: list[Denial] = field(default_factory=list)
    final_text: str = ""
    last_prompt_tokens: int = 0

    def add_usage(self, usage: ChunkUsage, cost: float | None) -> None:
        """Add one model call's usage to the totals."""
        totals = self.usage
        totals.prompt_tokens += usage.prompt_tokens
        totals.output_tokens += usage.output_tokens
        totals.thoughts_tokens += usage.thoughts_tokens
        totals.cached_tokens += usage.cached_tokens
        totals.total_tokens += usage.prompt_tokens + usage.output_tokens + usage.thoughts_tokens
        totals.model_calls += 1
        if cost is not None:
            totals.cost_usd = round((totals.cost_usd or 0.0) + cost, 8)
        self.last_prompt_tokens = usage.prompt_tokens
