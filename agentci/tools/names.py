"""The names of the tools every task has, without importing the tools.

``agentci validate`` and the checks before a run (:mod:`agentci.run.near_misses`) need only
these names; importing the tools themselves (the file, search and shell tools, with the policy
they apply) would cost them most of their start-up time. :mod:`agentci.tools.registry` holds
the tools; a test keeps the two in step.
"""

from __future__ import annotations

#: The built-in tools, in the registry's order (docs/tools.md).
BUILTIN_TOOLS: tuple[str, ...] = (
    "read_file",
    "list_directory",
    "glob",
    "grep_search",
    "write_file",
    "replace",
    "run_shell_command",
)
#: The tool that hands in a structured answer (only with ``output`` in the recipe).
SUBMIT_TOOL = "submit_result"
