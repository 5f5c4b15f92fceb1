"""Names in a recipe that are almost right: a rule's tool (a template variable:
:mod:`agentci.recipe.hints`).

Each is valid YAML of the right type, so the schema accepts it, but it does not do what its
author meant: a rule whose tool names no tool never matches. ``agentci validate`` (and ``run``,
before anything starts) reports each with the name that was probably meant.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from agentci.recipe.hints import did_you_mean
from agentci.tools.names import BUILTIN_TOOLS, SUBMIT_TOOL

__all__ = ["did_you_mean", "tool_names", "unmatched_tools"]


def tool_names(commands: Iterable[str] = ()) -> list[str]:
    """Every tool a rule can name: the built-in tools, ``submit_result`` and the recipe's
    command tools (by name: the tools themselves are not imported)."""
    return [*BUILTIN_TOOLS, SUBMIT_TOOL, *commands]


def unmatched_tools(
    tool: str | list[str], commands: Iterable[str] = (), servers: Iterable[str] = ()
) -> list[str]:
    """The patterns of a rule's ``tool`` that match no tool (such a rule never applies). An MCP
    server's tools are known only once it runs: a pattern ``SERVER__…`` naming one of
    ``servers`` (its part before ``__`` matching the server's name) is taken as matching."""
    names = tool_names(commands)
    servers = list(servers)
    patterns = [tool] if isinstance(tool, str) else tool
    return [
        p
        for p in patterns
        if not any(fnmatch.fnmatchcase(n, p) for n in names)
        and not ("__" in p and any(fnmatch.fnmatchcase(s, p.split("__")[0]) for s in servers))
    ]
