"""Names in a recipe that are almost right: a rule's tool, a model, a template variable.

Each is valid YAML of the right type, so the schema accepts it, but it does not do what its
author meant: a rule whose tool names no tool never matches, a misspelt model fails only at
its first call, an undefined variable fails the template. ``agentci validate`` (and ``run``,
before anything starts) reports each with the name that was probably meant.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

#: How alike a misspelt name and the name meant are (difflib's ratio).
_CUTOFF = 0.85


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``word``, or ``""``."""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def tool_names(commands: Iterable[str] = ()) -> list[str]:
    """Every tool a rule can name: the built-in tools, ``submit_result`` and the recipe's
    command tools."""
    from agentci.tools.registry import TOOL_CLASSES
    from agentci.tools.submit import SubmitResult

    return [cls.name for cls in TOOL_CLASSES] + [SubmitResult.name, *commands]


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


def undefined_hint(template: str, values: Mapping[str, Any], env: Any) -> str:
    """`` (did you mean 'x'?)`` for the template's undefined variables that look like one of
    ``values`` (the recipe's parameters), or ``""``."""
    from jinja2 import TemplateSyntaxError, meta

    try:
        used = meta.find_undeclared_variables(env.parse(template))
    except TemplateSyntaxError:
        return ""
    missing = sorted(used - set(values) - set(env.globals))
    hints = [(name, did_you_mean(name, values)) for name in missing]
    hints = [(name, hint) for name, hint in hints if hint]
    if len(hints) == 1:
        return hints[0][1]
    return "".join(f" ({hint[len(' (') : -1]} for {name!r})" for name, hint in hints)
