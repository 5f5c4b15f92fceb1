"""The name that was probably meant, for a misspelt name: a template variable that is not a
parameter (used by :mod:`agentci.recipe.render`) and the rest of ``agentci validate``'s hints
(:mod:`agentci.run.near_misses`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from jinja2 import TemplateSyntaxError, meta


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``word``, or ``""``."""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def undefined_hint(template: str, values: Mapping[str, Any], env: Any) -> str:
    """`` (did you mean 'x'?)`` for the template's undefined variables that look like one of
    ``values`` (the recipe's parameters), or ``""``."""
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
