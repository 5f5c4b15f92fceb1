"""What the policy knows of a tool: its name and its kind (read, edit, execute), never its class."""

from __future__ import annotations

from enum import Enum
from typing import Protocol


class ToolKind(str, Enum):
    """``read`` tools run concurrently; ``edit`` and ``execute`` run alone, in order."""

    read = "read"
    edit = "edit"
    execute = "execute"


class Judged(Protocol):
    """A tool as the policy judges it (:class:`agentci.tools.base.Tool` is one)."""

    @property
    def name(self) -> str:
        """The name the model calls it by."""

    @property
    def kind(self) -> ToolKind:
        """Whether it reads, edits or executes."""

    @property
    def judged_by_name(self) -> bool:
        """True for a recipe's own tools (MCP, commands): only rules naming them decide."""
