"""The names of the tools every task has, without importing the tools.

``agentci validate`` and the checks before a run (:mod:`agentci.run.near_misses`) need only
these names; importing the tools themselves (the file, search and shell tools, with the policy
they apply) would cost them most of their start-up time. :mod:`agentci.tools.registry` holds
the tools; a test keeps the two in step. The list itself lives with the recipe's tool
settings (:mod:`agentci.recipe.tool_config`), which refuse those names for command tools.
"""

from __future__ import annotations

from agentci.recipe.tool_config import BUILTIN_TOOLS, SUBMIT_TOOL

__all__ = ["BUILTIN_TOOLS", "SUBMIT_TOOL"]
