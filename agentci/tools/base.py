"""What a tool is: a name, a kind, a pydantic argument model, what a call touches
(``accesses``), and an async ``run``.

The argument model is the function declaration the model sees (its JSON Schema), and the
validator of what the model sends. ``accesses`` says what one call reads, writes or executes
(:class:`~agentci.policy.access.Access` values): the policy judges those, and loop detection
compares their paths; a tool that does not say is judged as executing in the workspace root.
A new tool is its own module plus one line in :mod:`agentci.tools.registry`. A tool never raises to the loop: failures are
:class:`ToolFailure` (or any exception), which the scheduler turns into a tool error
returned to the model.
"""

from __future__ import annotations

import functools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from agentci.policy.access import UNDECLARED, Access
from agentci.policy.access import ToolKind as ToolKind
from agentci.providers.base import ToolSpec
from agentci.tools.engine import SearchEngine
from agentci.tools.truncation import SavedOutputs

if TYPE_CHECKING:
    from agentci.policy.rules import PolicyEngine


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
    (None: they are only cut). ``redact`` masks the run's secrets (by value) in each tool's
    output and error, once, before the model and the after_tool hooks see them (None: not
    masked).
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
    redact: Callable[[str], str] | None = None


@dataclass
class ToolResult:
    """What a tool returns; ``error`` set means the call failed (the model sees why)."""

    output: str = ""
    error: str | None = None
    exit_code: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@functools.lru_cache(maxsize=256)
def _declared_parameters(args: type[BaseModel]) -> str:
    """The JSON text of :meth:`Tool.spec`'s ``parameters`` for an ``Args`` class, made once per
    class: pydantic builds the JSON Schema anew on every call (about 18 ms for a session's
    tools, in every task of a batch)."""
    schema = args.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        _plain_optional(prop)
    return json.dumps(schema)


def _plain_optional(prop: dict[str, Any]) -> None:
    """``{anyOf: [T, {type: null}], default: null}`` becomes ``T``, in place."""
    options = prop.get("anyOf")
    if not options or len(options) != 2 or "default" not in prop or prop["default"] is not None:
        return
    kept = [o for o in options if o != {"type": "null"}]
    if len(kept) == 1:
        del prop["anyOf"], prop["default"]
        prop.update(kept[0])


class Tool(ABC):
    """Base of the tools. Subclasses set ``name``, ``kind``, ``description`` and ``Args``."""

    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]

    def spec(self) -> ToolSpec:
        """The function declaration the model sees: the arguments' JSON Schema without titles,
        and an optional argument as its plain type (pydantic's ``anyOf [type, null]`` with
        ``default: null`` says nothing a missing ``required`` entry does not, in every
        request)."""
        parameters = json.loads(_declared_parameters(self.Args))  # a fresh copy each time
        return ToolSpec(name=self.name, description=self.description, parameters=parameters)

    def accesses(self, args: BaseModel) -> Sequence[Access]:
        """What a call with ``args`` (validated) reads, writes or executes. A tool that does not
        say is taken to execute something in the workspace root (fail closed: allowed only by a
        rule naming the tool, or ``yolo``)."""
        return UNDECLARED

    def only_reads(self, args: BaseModel, policy: PolicyEngine) -> bool:
        """Whether this call only reads, so it may run at the same time as the turn's other
        reads (the ``read`` tools; a shell tool asks :mod:`agentci.policy.concurrent`)."""
        return self.kind is ToolKind.read

    def refuse(self, why: str) -> str:
        """A call refused before it ran (its arguments were not kept): the error the model
        sees. A tool that counts attempts counts this one too."""
        return why

    @abstractmethod
    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        """Do the work. Raise ToolFailure (or anything) to return an error to the model."""
