"""What a tool is: a name, a kind, a pydantic argument model, and an async ``run``.

The argument model is the function declaration the model sees (its JSON Schema), and the
validator of what the model sends. A tool never raises to the loop: failures are
:class:`ToolFailure` (or any exception), which the scheduler turns into a tool error
returned to the model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from agentci.policy.access import ToolKind as ToolKind
from agentci.providers.base import ToolSpec
from agentci.tools.engine import SearchEngine
from agentci.tools.truncation import SavedOutputs


@dataclass
class ToolContext:
    """What tools may use: the workspace and the limits of one task.

    ``workspace`` is the resolved real path of the workspace root. ``env`` is the
    environment a child process gets (an allowlist, never the parent's secrets).
    ``protected`` are workspace-relative globs the agent may never write.
    ``private_dirs`` are agentci's own folders in the workspace (``.agentci``, the output
    folder when it is inside): never listed or searched. ``search`` is the engine of
    ``glob``/``grep_search`` (None: :func:`~agentci.tools.pick_engine.default_engine`).
    ``outputs`` saves outputs over ``output_cap_chars`` whole for ``read_file``
    (None: they are only cut).
    """

    workspace: Path
    env: dict[str, str] = field(default_factory=dict)
    timeout_seconds: float = 300.0
    output_cap_chars: int = 30_000
    protected: tuple[str, ...] = (".git/**", ".agentci/**")
    sandbox: Any = None
    private_dirs: tuple[str, ...] = (".agentci",)
    search: SearchEngine | None = None
    outputs: SavedOutputs | None = None


@dataclass
class ToolResult:
    """What a tool returns; ``error`` set means the call failed (the model sees why)."""

    output: str = ""
    error: str | None = None
    exit_code: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Tool(ABC):
    """Base of the tools. Subclasses set ``name``, ``kind``, ``description`` and ``Args``."""

    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    #: The policy judges a call by the tool's name alone, by rules naming it, never by the
    #: mode's defaults for shell commands (MCP and command tools: what they do is their own).
    judged_by_name: ClassVar[bool] = False

    def spec(self) -> ToolSpec:
        """The function declaration the model sees."""
        schema = self.Args.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    def refuse(self, why: str) -> str:
        """A call refused before it ran (its arguments were not kept): the error the model
        sees. A tool that counts attempts counts this one too."""
        return why

    @abstractmethod
    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        """Do the work. Raise ToolFailure (or anything) to return an error to the model."""
