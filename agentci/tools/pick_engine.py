"""Which search engine ``glob`` and ``grep_search`` use (see :mod:`agentci.tools.engine`)."""

from __future__ import annotations

import functools

from agentci.policy.runtime import choose_program
from agentci.tools.engine import SearchEngine
from agentci.tools.rg import Ripgrep
from agentci.tools.rg_find import find_rg
from agentci.tools.walk import Re2Walk


@functools.cache
def default_engine() -> SearchEngine:
    """ripgrep when an ``rg`` binary answers, else the RE2 walk. The binary is chosen once,
    at a task's start, and protected from then on when it lies inside the workspace
    (:func:`~agentci.policy.runtime.choose_program`): the host runs it."""
    found = find_rg()
    if found is not None:
        choose_program(found[0])
        return Ripgrep(*found)
    return Re2Walk()
