"""Which search engine ``glob`` and ``grep_search`` use (see :mod:`agentci.tools.engine`)."""

from __future__ import annotations

import functools

from agentci.tools.engine import SearchEngine
from agentci.tools.rg import Ripgrep, find_rg
from agentci.tools.walk import Re2Walk


@functools.cache
def default_engine() -> SearchEngine:
    """ripgrep when an ``rg`` binary answers, else the RE2 walk."""
    found = find_rg()
    if found is not None:
        return Ripgrep(*found)
    return Re2Walk()
