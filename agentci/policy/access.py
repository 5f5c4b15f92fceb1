"""What the policy knows of a tool call: the tool's name and what the call touches, as the tool
declares it — never the tool's class nor its arguments.

A tool says what one call reads, writes or executes (:meth:`agentci.tools.base.Tool.accesses`);
the policy (:mod:`agentci.policy.rules`) and loop detection
(:mod:`agentci.context.tool_cycles`) look at these values, never at argument names. ``path``
is as the model wrote it (workspace-relative, or whatever it sent: the policy resolves it and
refuses what leads outside). An ``exec`` access may carry the ``command`` it runs (the shell
tool's command line, judged word by word); one without a command is judged by rules naming the
tool and the mode. A tool that declares nothing is judged as :data:`UNDECLARED`: it executes, in
the workspace root — allowed only by a rule naming it, or ``yolo`` (fail closed). The recipe's
MCP and command tools are such tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal


class ToolKind(str, Enum):
    """``read`` tools run concurrently; ``edit`` and ``execute`` run alone, in order."""

    read = "read"
    edit = "edit"
    execute = "execute"


AccessKind = Literal["read", "write", "exec"]


@dataclass(frozen=True)
class Access:
    """One thing a call does: ``read`` or ``write`` the file or folder ``path``, or ``exec``
    (run something) in the folder ``path``, the shell's ``command`` when it is one."""

    kind: AccessKind
    path: str = "."
    command: str | None = None


#: What a tool that declares no access is taken to do.
UNDECLARED = (Access("exec", "."),)
