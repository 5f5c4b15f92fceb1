"""A hook of the recipe, compiled, and what the hooks of one stage decided (the values the
runner and the tool stages share)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci.events.hook_events import HookResult
from agentci.hooks.answer import Decision
from agentci.recipe.hook_config import Hook, StageHook


@dataclass(frozen=True)
class CompiledHook:
    """One hook of the recipe, its first word resolved (see :func:`resolve_command`)."""

    stage: str
    index: int
    hook: Hook | StageHook
    command: str
    script: Path | None = None

    @property
    def label(self) -> str:
        """``hooks.before_tool[0]``: where the hook is in the recipe."""
        return f"hooks.{self.stage}[{self.index}]"

    @property
    def rule(self) -> str:
        """What ``tool_call_decision.rule`` names: the hook and its command."""
        return f"{self.label}: {self.hook.command}"

    def matches(self, tool_name: str | None) -> bool:
        """A stage hook always applies; a tool hook's ``*`` matches every tool, anything else
        is a regex fully matching the name."""
        if not isinstance(self.hook, Hook) or self.hook.matcher == "*":
            return True
        return tool_name is not None and re.fullmatch(self.hook.matcher, tool_name) is not None


@dataclass
class HookVerdict:
    """What the hooks of one stage decided, the events they produced, their notes (after_tool,
    a rewrite), the context they add, and the arguments a before_tool rewrite put in place."""

    decision: Decision = "continue"
    reason: str = ""
    hook: CompiledHook | None = None
    events: list[HookResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    args: dict[str, Any] | None = None
    failures: list[str] = field(default_factory=list)  # observing hooks that failed (warnings)
    running: CompiledHook | None = None  # session_end: the hook running now (a signal stops it)
